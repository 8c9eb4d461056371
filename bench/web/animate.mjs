// SPDX-License-Identifier: MIT
// The WORKLOADS.md `animate` frame through arbor's WebAssembly module in headless Chromium: the
// shape is drawn by bench/peers/workload.mjs (the same streams as bench/workloads.h), handed to
// the page as binary files, built there with scene.addNode, and each frame writes every node's
// rotation through the module's bulk path (scene.setRotations: the values copied into the
// module's memory, then arbor_scene_set_rotations) and calls scene.update(). Prints one JSON
// line per shape, as the peers do (peer, shape, metric, value in ns/node, min, frames, checksum).
//
// Usage: node bench/web/animate.mjs [--shape S]... [--size N] [--length L] [--frames N]   (bench/web/run)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, makeShape } from '../peers/workload.mjs';
import { serve, launch } from '../../tests/web/browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = process.argv.slice(2);
const shapes = [];
let size = 0, length = 0, frames = 31;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--shape') shapes.push(args[++i]);
  else if (args[i] === '--size') size = Number(args[++i]);
  else if (args[i] === '--length') length = Number(args[++i]);
  else if (args[i] === '--frames') frames = Number(args[++i]);
  else throw new Error(`unknown argument '${args[i]}'`);
}
if (!shapes.length) shapes.push('skeletons', 'random', 'chains');

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-web-bench-'));
const server = await serve({ '/': path.join(root, 'build/web'), '/bench/': here, '/data/': data });
const browser = await launch();
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${server.url}/bench/bench.html`);
  await page.waitForFunction(() => document.title === 'ready', { timeout: 60000 });
  const version = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] || navigator.userAgent);
  for (const name of shapes) {
    const w = generate(makeShape(name, size, length));
    const write = (file, array) => fs.writeFileSync(path.join(data, file), Buffer.from(array.buffer, array.byteOffset, array.byteLength));
    write('parent.bin', w.parent);
    write('t.bin', Float32Array.from(w.t));
    write('r.bin', Float32Array.from(w.r));
    write('s.bin', Float32Array.from(w.s));
    w.rot.forEach((set, k) => write(`rot${k}.bin`, Float32Array.from(set)));
    const r = await page.evaluate(async (count, frames) => window.runAnimate(count, frames), w.count, frames);
    console.log(JSON.stringify({
      peer: `arbor wasm (${version}, headless)`, shape: name, metric: 'animate', variant: 'bulk',
      value: Number(r.median.toPrecision(6)), unit: 'ns/node', frames: r.frames, nodes: w.count,
      checksum: Number(r.checksum.toPrecision(9)), min: Number(r.min.toPrecision(6)),
    }));
  }
} finally {
  await browser.close();
  server.close();
  fs.rmSync(data, { recursive: true, force: true });
}
