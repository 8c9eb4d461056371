// SPDX-License-Identifier: MIT
// Browser tests of arbor's WebAssembly module and viewer page, in headless Chromium: run by
// `scripts/web test` (which builds build/web/ and the native CLI first).
//
//   - the page opens on the robot arm with no console error and shows its eight nodes;
//   - every .glb and .gltf under ../shared/gltf/samples and ../shared/gltf/extensions (whatever
//     files are there) loads through window.viewer.load, its world matrices equal the native
//     CLI's `arbor dump --json --scene all` within 1e-5, and its picture is not blank
//     (screenshots in build/web-test/); a file the CLI refuses is refused with its message;
//   - the module: node access, paths, bulk writes, worldMatrices, errors with arbor's message;
//   - the joint sliders pose the arm as a double-precision product computed here says;
//   - drag and drop, and the file picker, load a .glb and a .gltf with its .bin;
//   - animation: the rest pose at load, play and scrub move the animated node;
//   - three.js through the bridge (three.mjs): the Fox running (pixels, bone and joint matrices
//     against the native CLI), texture and material colours on screen, VC's default view, no
//     horizontal scroll, `scripts/web serve` with ?src=, arbor's message for a README, and the
//     crowd page's joint matrices for each driver.
//
// Usage: node tests/web/test.mjs [--cli PATH] [--cli-double PATH]
//        (default CLIs: build/web-native/arbor, and build/web-native-double/arbor built with ARBOR_DOUBLE)
// Without ../shared the sample checks fail when CI=true, and are reported skipped otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from './browser.mjs';
import { threeChecks } from './three.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cliArg = process.argv.indexOf('--cli');
const cli = cliArg > 0 ? process.argv[cliArg + 1] : path.join(root, 'build/web-native/arbor');
const doubleArg = process.argv.indexOf('--cli-double');
const cliDouble = doubleArg > 0 ? process.argv[doubleArg + 1] : path.join(root, 'build/web-native-double/arbor');
const samples = path.resolve(root, '../shared/gltf/samples');
const extensions = path.resolve(root, '../shared/gltf/extensions');
const shots = path.join(root, 'build/web-test');
const TOLERANCE = 1e-5;

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}

// Every .glb and .gltf under ../shared/gltf/samples and ../shared/gltf/extensions, at any depth
// (files added there later, as CI adds held-out ones, included): { name (its path under
// ../shared/gltf), url (where the test server has it), file }.
function modelFiles() {
  const out = [];
  for (const [mount, dir] of [['samples', samples], ['extensions', extensions]]) {
    if (!fs.existsSync(dir)) continue;
    for (const rel of fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(glb|gltf)$/i.test(f)).sort()) {
      const parts = rel.split(path.sep);
      out.push({ name: `${mount}/${parts.join('/')}`, url: `/${mount}/${parts.map(encodeURIComponent).join('/')}`, file: path.join(dir, rel) });
    }
  }
  return out;
}

// `arbor dump --json --scene all FILE` of the native CLI: { dump } or, when it refuses the
// file, { refused: its message less the CLI's "arbor: dump: FILE: " }.
function nativeDump(file) {
  try {
    return { dump: JSON.parse(execFileSync(cli, ['dump', '--json', '--scene', 'all', file], { maxBuffer: 1 << 26, stdio: 'pipe' })) };
  } catch (e) {
    if (!e.stderr || e.status === null) throw e;
    const text = String(e.stderr).trim(), prefix = `arbor: dump: ${file}: `;
    return { refused: text.startsWith(prefix) ? text.slice(prefix.length) : text };
  }
}

// Pixels of the page's WebGL canvas of a kind: 'coloured', not the grey of the background or the
// grid (the meshes, boxes and node markers are coloured); 'yellow', the frozen camera's frustum.
async function countPixels(page, kind) {
  return page.evaluate((kind) => {
    const gl = document.getElementById('canvas');
    const c = document.createElement('canvas');
    c.width = gl.width;
    c.height = gl.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(gl, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) {
      const [r, g, b] = [px[i], px[i + 1], px[i + 2]];
      if (kind === 'yellow' ? r > 180 && g > 180 && b < 120
        : kind === 'drawn' ? Math.max(r, g, b) > 100 || Math.max(r, g, b) - Math.min(r, g, b) > 30 // not background or grid
          : Math.max(r, g, b) - Math.min(r, g, b) > 40) n++;
    }
    return n;
  }, kind);
}

// Waits for two animation frames, so the page has drawn what the last call changed.
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// ---- Double-precision reference for the robot arm (independent of arbor) ----------------------

function m4mul(a, b) {
  const o = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return o;
}
const T = (x, y, z) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
const Ry = (a) => [Math.cos(a), 0, -Math.sin(a), 0, 0, 1, 0, 0, Math.sin(a), 0, Math.cos(a), 0, 0, 0, 0, 1];
const Rz = (a) => [Math.cos(a), Math.sin(a), 0, 0, -Math.sin(a), Math.cos(a), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const deg = Math.PI / 180;

// The arm's hand: base T(0, 0.2, 0) R_y(yaw) > joint T(0, 0.2, 0) R_z(bend) > arm T(0, 0.7, 0) >
// hand T(0, 0.7, 0) (examples/robot_arm.gltf's locals).
function handWorld(yaw, bend) {
  return [T(0, 0.2, 0), Ry(yaw * deg), T(0, 0.2, 0), Rz(bend * deg), T(0, 0.7, 0), T(0, 0.7, 0)].reduce(m4mul);
}

function maxDiff(a, b) {
  let d = 0;
  for (let k = 0; k < 16; k++) d = Math.max(d, Math.abs(a[k] - b[k]));
  return d;
}

// ---- The run --------------------------------------------------------------------------------

fs.mkdirSync(shots, { recursive: true });
const haveSamples = fs.existsSync(samples);
const server = await serve({ '/': path.join(root, 'build/web'), '/samples/': samples, '/extensions/': extensions });
const browser = await launch();
const errors = [];
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 650 });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  // a request Chromium reports aborted (net::ERR_ABORTED: seen now and then for three.js's Draco
  // decoder, which arrives all the same) is no error the page shows; what it fetched is checked
  // by the file's own checks (its matrices, its meshes drawn)
  page.on('requestfailed', (r) => { if (r.failure()?.errorText !== 'net::ERR_ABORTED') errors.push(`request failed: ${r.url()}`); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });

  // 1. The page opens on the robot arm.
  await page.goto(`${server.url}/index.html`);
  await page.waitForSelector('body[data-ready]', { timeout: 30000 });
  await frames(page);
  const arm = await page.evaluate(() => ({
    ready: document.body.dataset.ready,
    count: window.viewer.scene.nodeCount,
    tree: [...document.querySelectorAll('#tree li')].map((li) => li.querySelector('.name').textContent),
  }));
  check('page opens on the robot arm', arm.ready === 'true' && arm.count === 8, JSON.stringify(arm));
  check('hierarchy panel shows the arm\'s eight nodes',
    JSON.stringify(arm.tree) === JSON.stringify(['base', 'joint', 'arm', 'hand', 'mirror', 'joint2', 'arm2', 'hand2']),
    arm.tree.join(' '));
  check('no console error on opening', errors.length === 0, errors.join(' | '));
  await page.screenshot({ path: path.join(shots, 'robot_arm.png') });
  check('robot arm picture is not blank', (await countPixels(page, 'drawn')) > 1000);

  // The hierarchy panel: select shows the node's TRS, the toggle collapses its children.
  const panel = await page.evaluate(() => {
    const li = (name) => [...document.querySelectorAll('#tree li')].find((l) => l.querySelector('.name').textContent === name);
    li('hand').querySelector('.name').click();
    const trs = document.getElementById('trs').textContent;
    li('base').querySelector('.toggle').click();
    const hidden = getComputedStyle(li('joint')).display === 'none' || li('joint').offsetParent === null;
    li('base').querySelector('.toggle').click();
    const shown = li('joint').offsetParent !== null;
    return { trs, hidden, shown };
  });
  check('selecting a node shows its local and world TRS', /local T0\.0000, 0\.7000, 0\.0000/.test(panel.trs) &&
    /world T-0\.7793, 1\.4725, 0\.4500/.test(panel.trs), panel.trs);
  check('collapse and expand', panel.hidden && panel.shown, JSON.stringify(panel));

  // The culling camera: frozen, then the orbit camera turned away: its frustum is drawn (yellow).
  await page.click('#freeze');
  const canvasBox = await (await page.$('#canvas')).boundingBox();
  await page.mouse.move(canvasBox.x + 300, canvasBox.y + 300);
  await page.mouse.down();
  await page.mouse.move(canvasBox.x + 500, canvasBox.y + 250, { steps: 5 });
  await page.mouse.up();
  await page.mouse.wheel({ deltaY: 600 });
  await frames(page);
  const yellow = [await countPixels(page, 'yellow'), await page.evaluate(() => document.getElementById('overlay').textContent)];
  await page.screenshot({ path: path.join(shots, 'robot_arm_frustum.png') });
  check('a frozen culling camera shows its frustum after orbiting; the overlay counts', yellow[0] > 200 &&
    /nodes tested \d+\nvisible \d+ of 8\ncull time/.test(yellow[1]), `${yellow[0]} yellow pixels; ${yellow[1]}`);
  await page.click('#freeze');

  // 2. The module through window.viewer.scene.
  const api = await page.evaluate(() => {
    const s = window.viewer.scene;
    const hand = s.find('/base/joint/arm/hand');
    const base = s.node(0);
    const out = {
      handIndex: hand.index, handParent: hand.parent.name, baseChildren: base.children.map((c) => c.name),
      baseParent: base.parent, missing: s.find('/base/nope'),
    };
    const all = s.worldMatrices();
    out.viewLength = all.length;
    out.viewIsView = all.buffer !== undefined && !(all.byteOffset === 0 && all.length === all.buffer.byteLength / 4);
    out.handFromView = Array.from(all.subarray(16 * 3, 16 * 3 + 16));
    out.handMatrix = Array.from(hand.worldMatrix);
    // a write is seen by the next read with no update()
    base.setTranslation(1, 2, 3);
    out.baseAfter = Array.from(base.worldMatrix.slice(12, 15));
    base.setTranslation(0, 0.2, 0);
    // bulk: rotations of nodes 1 and 5 (the joints) to identity
    s.setRotations(new Float32Array([0, 0, 0, 1]), 1);
    out.jointLocal = s.node(1).local.rotation;
    try { s.node(99); } catch (e) { out.rangeError = e.message; }
    try { s.node(1).setRotation(NaN, 0, 0, 1); } catch (e) { out.nanError = e.message; }
    return out;
  });
  check('find, parent, children', api.handIndex === 3 && api.handParent === 'arm' &&
    JSON.stringify(api.baseChildren) === '["joint","mirror"]' && api.baseParent === null && api.missing === null,
    JSON.stringify(api));
  check('worldMatrices is a view of 16 floats a node', api.viewLength === 128 && api.viewIsView &&
    maxDiff(api.handFromView, api.handMatrix) === 0);
  check('hand at (-0.78, 1.47, 0.45) as the course prints it (yaw 30, bend 40)',
    maxDiff(api.handMatrix, handWorld(30, 40)) < TOLERANCE, api.handMatrix.slice(12, 15).join(', '));
  check('a write is read back without update()', JSON.stringify(api.baseAfter) === '[1,2,3]', api.baseAfter.join(', '));
  check('bulk rotations write the node', JSON.stringify(api.jointLocal) === '[0,0,0,1]', api.jointLocal.join(', '));
  check('errors throw with a message', /out of range/.test(api.rangeError || '') && (api.nanError || '').length > 0,
    `${api.rangeError} | ${api.nanError}`);

  const bad = await page.evaluate(async () => {
    const { createArbor } = await import('./arbor.mjs');
    const arbor = await createArbor();
    const text = '{"asset":{"version":"2.0"},"nodes":[{"name":"a","children":[1]},{"name":"b","children":[0]}]}';
    try { arbor.loadGltf(new TextEncoder().encode(text)); return 'loaded'; } catch (e) { return e.message; }
  });
  check('a bad file throws arbor\'s message with a JSON pointer', /\/nodes\/\d+/.test(bad), bad);

  // Copies (crowds): the arm twice in another scene, once as roots and once under a node at
  // (5, 0, 0); a bad parent is refused with nothing added.
  const copies = await page.evaluate(async () => {
    const { createArbor } = await import('./arbor.mjs');
    const arbor = await createArbor();
    const src = arbor.loadGltf(new Uint8Array(await (await fetch('robot_arm.gltf')).arrayBuffer()));
    const dst = arbor.createScene();
    const holder = dst.addNode({ name: 'holder', translation: [5, 0, 0] });
    const n = src.nodeCount, base = dst.addCopies(src, [null, holder]);
    const out = { n, base, count: dst.nodeCount, names: [dst.node(base + 3).name, dst.node(base + n + 3).name],
      under: dst.node(base + n).parent?.name, hand0: Array.from(dst.node(base + 3).worldMatrix),
      hand1: Array.from(dst.node(base + n + 3).worldMatrix) };
    try { dst.addCopies(src, [{ index: 99 }]); } catch (e) { out.refused = e.message; }
    out.after = dst.nodeCount;
    dst.dispose();
    src.dispose();
    return out;
  });
  check('addCopies: each copy the file\'s nodes in order, under its parent; a bad parent refused, nothing added',
    copies.base === 1 && copies.count === 1 + 2 * copies.n && copies.names.join() === 'hand,hand' && copies.under === 'holder' &&
    maxDiff(copies.hand0, handWorld(30, 40)) < TOLERANCE && maxDiff(copies.hand1, m4mul(T(5, 0, 0), handWorld(30, 40))) < TOLERANCE &&
    /out of range/.test(copies.refused || '') && copies.after === copies.count, JSON.stringify(copies));

  // 3. The joint sliders (reload the arm: the writes above changed it).
  await page.evaluate(() => window.viewer.load('robot_arm.gltf'));
  const slid = await page.evaluate(() => {
    const set = (id, v) => { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('input')); };
    set('slider-base', 90);
    set('slider-joint', -20);
    return Array.from(window.viewer.scene.find('/base/joint/arm/hand').worldMatrix);
  });
  check('joint sliders pose the arm (yaw 90, bend -20)', maxDiff(slid, handWorld(90, -20)) < TOLERANCE,
    slid.slice(12, 15).join(', '));
  await frames(page);
  await page.screenshot({ path: path.join(shots, 'robot_arm_sliders.png') });

  if (!haveSamples) {
    const msg = `${samples} is missing`;
    if (process.env.CI === 'true') check('../shared/gltf/samples present (required in CI)', false, msg);
    else console.log(`skip the sample checks: ${msg}`);
  } else {
    // 4. Every file of samples/ and extensions/: world matrices against the native CLI, a
    //    picture that is not blank; a file the CLI refuses is refused with its message.
    const files = modelFiles();
    check('samples/ and extensions/ give the test files', files.length >= 20, `${files.length} files`);
    for (const { name, url, file } of files) {
      const native = nativeDump(file);
      const before = errors.length;
      let got;
      try {
        got = await page.evaluate(async (url) => {
          try {
            const scene = await window.viewer.load(url), b = window.viewer.bridge;
            const objects = [];
            for (let i = 0; i < scene.nodeCount; i++) { const o = b.objectOf(i); if (o) objects.push([i, Array.from(o.matrixWorld.elements)]); }
            return { count: scene.nodeCount, world: Array.from(scene.worldMatrices()), objects };
          } catch (e) {
            return { refused: e.message, status: document.getElementById('status').textContent };
          }
        }, url);
      } catch (e) {
        check(`${name} loads`, false, e.message.split('\n')[0]);
        continue;
      }
      if (native.refused !== undefined || got.refused !== undefined) {
        const alive = await page.evaluate(() => window.viewer.bridge !== null && window.viewer.scene.nodeCount >= 0);
        check(`${name}: refused as arbor's CLI refuses it, with its message`, native.refused !== undefined && got.refused !== undefined &&
          native.refused.length > 0 && got.refused.includes(native.refused) && got.status.includes(native.refused) && alive,
          `page: ${got.refused} | CLI: ${native.refused}`);
        check(`${name}: no console error`, errors.length === before, errors.slice(before).join(' | '));
        continue;
      }
      const { dump } = native;
      let worst = 0;
      for (const n of dump.nodes) worst = Math.max(worst, maxDiff(got.world.slice(16 * n.index, 16 * n.index + 16), n.world));
      check(`${name}: ${got.count} world matrices equal arbor dump's`, got.count === dump.nodes.length && worst <= TOLERANCE,
        `max difference ${worst.toExponential(2)}`);
      let worstObject = 0;
      const byIndex = new Map(dump.nodes.map((n) => [n.index, n.world]));
      for (const [i, m] of got.objects) worstObject = Math.max(worstObject, maxDiff(m, byIndex.get(i)));
      check(`${name}: the ${got.objects.length} three.js objects' matrixWorld equal arbor dump's`, worstObject <= TOLERANCE,
        `max difference ${worstObject.toExponential(2)}`);
      await frames(page);
      const drawn = await countPixels(page, 'drawn');
      const meshes = await page.evaluate(() => {
        let n = 0;
        window.viewer.bridge.object.traverse((o) => { if (o.isMesh) n++; });
        return n;
      });
      await page.screenshot({ path: path.join(shots, `${name.replace(/[/\\]/g, '_')}.png`) });
      if (meshes) check(`${name}: its meshes are drawn`, drawn >= 200, `${drawn} drawn pixels, ${meshes} meshes`);
      check(`${name}: no console error`, errors.length === before, errors.slice(before).join(' | '));
    }

    // 5. Animation: the rest pose at load; play and scrub move the animated node (BoxAnimated).
    const anim = await page.evaluate(async () => {
      const scene = await window.viewer.load('/samples/BoxAnimated/BoxAnimated.glb');
      const rest = Array.from(scene.worldMatrices());
      const clips = scene.clips.map((c) => [c.name, c.duration]);
      const scrub = document.getElementById('scrub');
      scrub.value = 1.2;
      scrub.dispatchEvent(new Event('input'));
      const scrubbed = Array.from(scene.worldMatrices());
      document.getElementById('play').click();
      for (let k = 0; k < 60 && document.getElementById('time').textContent === '1.20 s'; k++) {
        await new Promise((r) => setTimeout(r, 50)); // a few frames (a loaded machine draws slowly)
      }
      await new Promise((r) => setTimeout(r, 200));
      document.getElementById('play').click();
      return { rest, clips, scrubbed, played: Array.from(scene.worldMatrices()), label: document.getElementById('time').textContent };
    });
    const dump = JSON.parse(execFileSync(cli, ['dump', '--json', path.join(samples, 'BoxAnimated/BoxAnimated.glb')]));
    const animated = JSON.parse(execFileSync(cli, ['animate', path.join(samples, 'BoxAnimated/BoxAnimated.glb'),
      '--time', '1.2', '--json']));
    let restDiff = 0, scrubDiff = 0;
    for (const n of dump.nodes) restDiff = Math.max(restDiff, maxDiff(anim.rest.slice(16 * n.index, 16 * n.index + 16), n.world));
    for (const n of animated.nodes) scrubDiff = Math.max(scrubDiff, maxDiff(anim.scrubbed.slice(16 * n.index, 16 * n.index + 16), n.world));
    check('BoxAnimated loads in its rest pose', anim.clips.length > 0 && restDiff <= TOLERANCE, `${restDiff}`);
    check('scrubbing to 1.2 s poses it as `arbor animate --time 1.2`', scrubDiff <= TOLERANCE, `${scrubDiff}`);
    check('play moves it on', maxDiff(anim.played, anim.scrubbed) > 0, anim.label);

    // 5b. three.js through the bridge: skinning, materials, textures, framing, the crowd, ?src=.
    await threeChecks({ browser, page, server, errors, check, cli, cliDouble, samples, shots, root });
  }

  // 6. ?src=URL, drag and drop, the file picker.
  const page2 = await browser.newPage();
  const errors2 = [];
  page2.on('console', (m) => { if (m.type() === 'error') errors2.push(m.text()); });
  page2.on('pageerror', (e) => errors2.push(e.message));
  const box = haveSamples ? '/samples/BoxAnimated/BoxAnimated.glb' : '/robot_arm.gltf';
  await page2.goto(`${server.url}/index.html?src=${encodeURIComponent(box)}`);
  await page2.waitForSelector('body[data-ready]', { timeout: 30000 });
  const viaSrc = await page2.evaluate(() => [document.body.dataset.ready, window.viewer.scene.nodeCount]);
  check('index.html?src=URL opens that file', viaSrc[0] === 'true' && viaSrc[1] === (haveSamples ? 4 : 8), viaSrc.join(' '));

  const dropped = await page2.evaluate(async () => {
    const files = [];
    for (const name of ['robot_arm.gltf']) {
      files.push(new File([await (await fetch(name)).arrayBuffer()], name));
    }
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(f);
    const view = document.getElementById('view');
    view.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    view.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    for (let k = 0; k < 100 && window.viewer.scene.nodeCount !== 8; k++) await new Promise((r) => setTimeout(r, 20));
    return [window.viewer.scene.nodeCount, document.getElementById('filename').textContent];
  });
  check('drag and drop of a .gltf loads it', dropped[0] === 8 && /robot_arm\.gltf/.test(dropped[1]), dropped.join(' '));

  if (haveSamples) {
    const dir = path.join(samples, 'BlenderIO_02_node_hierarchy');
    const dropGltf = await page2.evaluate(async (base) => {
      const names = ['02_node_hierarchy.gltf', '02_node_hierarchy.bin'];
      const dt = new DataTransfer();
      for (const n of names) dt.items.add(new File([await (await fetch(`${base}/${n}`)).arrayBuffer()], n));
      document.getElementById('view').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      for (let k = 0; k < 100 && !/02_node/.test(document.getElementById('filename').textContent); k++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return [window.viewer.scene.nodeCount, document.getElementById('filename').textContent];
    }, '/samples/BlenderIO_02_node_hierarchy');
    check('drag and drop of a .gltf with its .bin loads it', dropGltf[0] === 3, dropGltf.join(' '));

    const input = await page2.$('#file');
    await input.uploadFile(path.join(dir, '02_node_hierarchy.gltf'), path.join(dir, '02_node_hierarchy.bin'));
    await page2.evaluate(() => window.viewer.load('robot_arm.gltf'));
    await input.uploadFile(path.join(samples, 'Fox/Fox.glb'));
    const picked = await page2.evaluate(async () => {
      for (let k = 0; k < 100 && !/Fox/.test(document.getElementById('filename').textContent); k++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return [window.viewer.scene.nodeCount, document.getElementById('filename').textContent];
    });
    check('the file picker loads a .glb', picked[0] === 26, picked.join(' '));
  }
  check('no console error on the second page', errors2.length === 0, errors2.join(' | '));
} catch (e) {
  check('the run completes', false, e.stack);
} finally {
  await browser.close();
  server.close();
}
console.log(`\nweb: ${passed} passed, ${failed} failed (screenshots in ${path.relative(root, shots)}/)`);
process.exit(failed ? 1 : 0);
