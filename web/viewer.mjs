// SPDX-License-Identifier: MIT
// The viewer page (index.html): a glTF drawn by three.js and moved by arbor through the bridge
// (arbor-three.mjs): its hierarchy, the selected node's TRS, its animations, the robot arm's
// joints, and what a camera's frustum sees (arbor's culling). window.viewer is for scripts and
// tests: load(url), scene (the arbor Scene), bridge (the ArborThree), play(name), pause(),
// seek(seconds), three ({ renderer, scene, camera }).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';
import { createArbor } from './arbor.mjs';
import { ArborThree } from './arbor-three.mjs';

const $ = (id) => document.getElementById(id);
const arbor = await createArbor();

// ---- three.js: renderer, scene, camera, default light and environment ------------------------

const canvas = $('canvas');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
const world = new THREE.Scene();
world.background = new THREE.Color(0x262626);
const pmrem = new THREE.PMREMGenerator(renderer);
const environment = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
// used when the file has no lights of its own
const defaultLights = new THREE.Group();
defaultLights.add(new THREE.HemisphereLight(0xffffff, 0x404040, 0.5));
const sun = new THREE.DirectionalLight(0xffffff, 1.0);
sun.position.set(0.5, 1, 0.7);
defaultLights.add(sun);
world.add(defaultLights);
const helpers = new THREE.Group(); // grid, selection box, frozen frustum
world.add(helpers);

// ---- State ----------------------------------------------------------------------------------

const state = {
  bridge: null, scene: null, name: '', selected: -1, radius: 1,
  frozen: null, cull: { tests: 0, nodes: new Int32Array(0) }, cullMs: undefined, last: 0,
};

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function release() {
  if (state.bridge) state.bridge.dispose();
  state.bridge = null;
  state.scene = null;
}

// A mesh the file gives no material gets GLTFLoader's default (white, fully metallic): shown
// instead in a plain matte blue-grey, so that its faces read under the lights.
const plain = new THREE.MeshStandardMaterial({ color: 0x8aa4c8, metalness: 0.05, roughness: 0.7 });
const plainFlat = plain.clone();
plainFlat.flatShading = true;
function plainMaterials(bridge) {
  const assoc = bridge.gltf.parser.associations;
  bridge.object.traverse((o) => {
    if (o.isMesh && o.material && !Array.isArray(o.material) && !assoc.get(o.material)) {
      o.material = o.material.flatShading ? plainFlat : plain;
    }
  });
}

// Shows a loaded bridge: the old one goes; returns the Scene (rest pose).
function show(name, bridge) {
  release();
  const scene = bridge.scene;
  Object.assign(state, { bridge, scene, name, selected: -1, frozen: null });
  world.add(bridge.object);
  plainMaterials(bridge);
  const lit = bridge.object.getObjectByProperty('isLight', true);
  defaultLights.visible = !lit;
  world.environment = environment;
  world.environmentIntensity = lit ? 0.4 : 0.5;
  $('freeze').checked = false;
  $('filename').textContent = `${name}: ${scene.nodeCount} nodes`;
  buildTree();
  showDetails();
  buildClips();
  setupJoints();
  frameScene();
  setStatus(`loaded ${name}`);
  return scene;
}

// ---- Hierarchy panel --------------------------------------------------------------------------

function buildTree() {
  const tree = $('tree');
  tree.textContent = '';
  const scene = state.scene;
  const top = document.createElement('ul');
  tree.append(top);
  // iterative: a stack of (node, list to append to)
  const stack = scene.roots.reverse().map((n) => [n, top]);
  while (stack.length) {
    const [node, list] = stack.pop();
    const li = document.createElement('li');
    li.dataset.index = node.index;
    const toggle = document.createElement('span');
    toggle.className = 'toggle';
    const label = document.createElement('span');
    label.className = 'name';
    label.textContent = node.name ?? `#${node.index}`;
    label.title = `node ${node.index}`;
    label.addEventListener('click', () => select(node.index));
    li.append(toggle, label);
    list.append(li);
    const children = node.children;
    if (children.length) {
      toggle.textContent = '▾';
      toggle.addEventListener('click', () => {
        li.classList.toggle('collapsed');
        toggle.textContent = li.classList.contains('collapsed') ? '▸' : '▾';
      });
      const ul = document.createElement('ul');
      li.append(ul);
      for (let k = children.length - 1; k >= 0; k--) stack.push([children[k], ul]);
    }
  }
}

function select(index) {
  state.selected = index;
  for (const el of document.querySelectorAll('#tree .name.selected')) el.classList.remove('selected');
  const li = document.querySelector(`#tree li[data-index="${index}"]`);
  if (li) li.querySelector(':scope > .name').classList.add('selected');
  showDetails();
}

const fmt = (v) => v.map((x) => (Math.abs(x) < 5e-7 ? 0 : x).toFixed(4)).join(', ');

function showDetails() {
  const el = $('trs');
  if (state.selected < 0 || !state.scene) { el.textContent = '(none)'; return; }
  const node = state.scene.node(state.selected), l = node.local, w = node.world;
  el.innerHTML = '';
  const table = document.createElement('table');
  const rows = [['node', `${node.index} ${node.name ?? ''}`], ['local T', fmt(l.translation)], ['local R', fmt(l.rotation)],
    ['local S', fmt(l.scale)], ['world T', fmt(w.translation)], ['world R', fmt(w.rotation)],
    ['world S', fmt(w.scale) + (w.exact ? '' : ' (sheared)')]];
  for (const [k, v] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  el.append(table);
}

// ---- Animation ------------------------------------------------------------------------------

function buildClips() {
  const sel = $('clip');
  sel.textContent = '';
  const clips = state.scene.clips;
  for (const c of clips) sel.append(new Option(`${c.name} (${c.duration.toFixed(2)} s)`, c.index));
  $('anim').hidden = clips.length === 0;
  $('scrub').max = Math.max(clips[0]?.duration || 0, 0.001);
  $('play').textContent = 'Play';
  $('scrub').value = 0;
  $('time').textContent = '0.00 s';
}

// The bridge's player of the clip the list shows (made on first use, at time 0, paused).
function ensurePlayer() {
  const b = state.bridge, index = Number($('clip').value);
  if (!b.clip || b.clip.index !== index) {
    b.play(index);
    b.pause();
    $('scrub').max = Math.max(b.clip.duration, 0.001);
  }
  return b;
}

function showTime() {
  const b = state.bridge, d = b.clip.duration || 1;
  const t = ((b.time % d) + d) % d;
  $('scrub').value = t;
  $('time').textContent = `${t.toFixed(2)} s`;
}

function seek(t) {
  ensurePlayer().seek(t);
  showTime();
  if (state.selected >= 0) showDetails();
}

function setPlaying(on) {
  if (!state.scene || !state.scene.clips.length) return;
  const b = ensurePlayer();
  b.playing = on;
  state.last = performance.now();
  $('play').textContent = on ? 'Pause' : 'Play';
}

// Plays the clip of that name (or index) from the start.
function play(name) {
  const clips = state.scene.clips;
  const clip = clips.find((c) => c.name === name) || (typeof name === 'number' ? clips[name] : clips[0]);
  if (!clip) throw new Error(`no animation ${JSON.stringify(name)} in ${state.name}`);
  $('clip').value = clip.index;
  ensurePlayer().seek(0);
  setPlaying(true);
  return clip;
}

$('play').addEventListener('click', () => setPlaying(!(state.bridge && state.bridge.playing)));
$('scrub').addEventListener('input', () => { if (state.scene) seek(Number($('scrub').value)); });
$('clip').addEventListener('change', () => {
  const playing = state.bridge.playing;
  ensurePlayer().seek(0);
  setPlaying(playing);
  showTime();
});

// ---- Robot arm joints -------------------------------------------------------------------------

const JOINTS = [['slider-base', '/base', [0, 1, 0]], ['slider-joint', '/base/joint', [0, 0, 1]],
  ['slider-joint2', '/base/mirror/joint2', [0, 0, 1]]];

function isRobotArm(scene) {
  return JOINTS.every(([, path]) => scene.find(path)) && scene.find('/base/joint/arm/hand');
}

function setupJoints() {
  const arm = isRobotArm(state.scene);
  $('joints').hidden = !arm;
  if (!arm) return;
  for (const [id, path, axis] of JOINTS) {
    // the slider starts at the file's angle about the joint's axis
    const q = state.scene.find(path).local.rotation;
    const s = Math.hypot(q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2]);
    const sign = Math.sign(q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2]) || 1;
    $(id).value = Math.round((2 * Math.atan2(s, q[3]) * 180 / Math.PI) * sign);
  }
}

for (const [id, path, axis] of JOINTS) {
  $(id).addEventListener('input', () => {
    if (!state.scene || $('joints').hidden) return;
    const half = (Number($(id).value) * Math.PI) / 360, s = Math.sin(half);
    state.scene.find(path).setRotation(axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(half));
    if (state.selected >= 0) showDetails();
  });
}

// ---- Camera: framed on the meshes -------------------------------------------------------------

// The box of the meshes' world boxes; without meshes, of the nodes' origins. A file whose
// meshes include one 30 times the median size or more (a sky around a town, the ground under
// it) would put the camera outside it, looking at its back: there the framing takes only the
// meshes up to 4 times the median size, when they are three quarters of the file's or more.
function frameScene() {
  const boxes = [];
  state.bridge.object.traverse((o) => {
    if (o.isMesh && o.visible) {
      const b = new THREE.Box3().setFromObject(o);
      if (!b.isEmpty()) boxes.push(b);
    }
  });
  const size = (b) => b.getSize(new THREE.Vector3()).length();
  const sizes = boxes.map(size).sort((x, y) => x - y), median = sizes[sizes.length >> 1];
  const typical = boxes.filter((b) => size(b) <= 4 * median);
  const enclosed = boxes.length >= 8 && sizes[sizes.length - 1] >= 30 * median && typical.length >= 0.75 * boxes.length;
  const all = new THREE.Box3();
  for (const b of enclosed ? typical : boxes) all.union(b);
  if (all.isEmpty()) {
    const w = state.scene.worldMatrices();
    for (let i = 0; i < state.scene.nodeCount; i++) all.expandByPoint(new THREE.Vector3(w[16 * i + 12], w[16 * i + 13], w[16 * i + 14]));
  }
  if (all.isEmpty()) all.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const centre = all.getCenter(new THREE.Vector3());
  const radius = Math.max(all.getSize(new THREE.Vector3()).length() / 2, 1e-3);
  state.radius = radius;
  const distance = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2)) * 1.05;
  const dir = new THREE.Vector3(Math.sin(0.6) * Math.cos(0.35), Math.sin(0.35), Math.cos(0.6) * Math.cos(0.35));
  camera.position.copy(centre).addScaledVector(dir, distance);
  camera.near = Math.max(distance / 1000, radius / 1000);
  camera.far = distance + 40 * radius;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  // the grid at the bottom of the box, its cells a power of ten
  helpers.clear();
  const step = 10 ** Math.floor(Math.log10(radius)), cells = Math.ceil((4 * radius) / step);
  const grid = new THREE.GridHelper(cells * step, cells, 0x555555, 0x3a3a3a);
  grid.position.set(centre.x, all.min.y, centre.z);
  helpers.add(grid);
}

$('freeze').addEventListener('change', () => { state.frozen = null; });

// ---- Culling overlay ------------------------------------------------------------------------

const viewProjection = new THREE.Matrix4();
const frustum = new THREE.LineSegments(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({ color: 0xf0f040 }));
frustum.frustumCulled = false;
world.add(frustum);
const selection = new THREE.Box3Helper(new THREE.Box3(), 0xf0b040);
world.add(selection);

// The 12 edges of the frustum of a view-projection (its clip cube taken back into the world).
function frustumEdges(vp) {
  const inv = vp.clone().invert(), c = [];
  for (const z of [-1, 1]) for (const y of [-1, 1]) for (const x of [-1, 1]) c.push(new THREE.Vector3(x, y, z).applyMatrix4(inv));
  const edges = [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];
  return new Float32Array(edges.flatMap(([a, b]) => [...c[a].toArray(), ...c[b].toArray()]));
}

function cull() {
  const scene = state.scene;
  camera.updateMatrixWorld();
  viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  if ($('freeze').checked && !state.frozen) {
    state.frozen = viewProjection.clone();
    frustum.geometry.setAttribute('position', new THREE.BufferAttribute(frustumEdges(state.frozen), 3));
  }
  if (!$('freeze').checked) state.frozen = null;
  frustum.visible = !!state.frozen;
  state.cull = scene.cull((state.frozen || viewProjection).elements);
  // performance.now() is coarse (0.1 ms without cross-origin isolation): average over frames
  state.cullMs = state.cullMs === undefined ? state.cull.ms : 0.95 * state.cullMs + 0.05 * state.cull.ms;
  $('overlay').textContent = `${state.name}\nnodes tested ${state.cull.tests}\nvisible ${state.cull.nodes.length}` +
    ` of ${scene.nodeCount}\ncull time ${(state.cullMs * 1000).toFixed(1)} us (average)`;
}

// ---- Drawing --------------------------------------------------------------------------------

function resize() {
  const w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
}

function frame() {
  const now = performance.now(); // the clock setPlaying started from (a frame's timestamp may be older)
  try {
    resize();
    if (state.bridge) {
      const b = state.bridge;
      b.update(b.playing ? (now - state.last) / 1000 : 0);
      state.last = now;
      if (b.playing) {
        showTime();
        if (state.selected >= 0) showDetails();
      }
      const box = state.selected >= 0 && state.scene.node(state.selected).worldBounds;
      selection.visible = !!box;
      if (box) selection.box.set(new THREE.Vector3(...box.min), new THREE.Vector3(...box.max));
      cull();
    }
    renderer.render(world, camera);
  } catch (e) {
    setStatus(e.message, true);
    if (state.bridge) state.bridge.playing = false;
  }
}

// ---- Loading: URL, file picker, drag and drop -------------------------------------------------

// three.js's options for the bridge: a GLTFLoader of its own for each load, with the decoders
// of Draco and meshopt compressed files (KHR_draco_mesh_compression, EXT_/KHR_meshopt_compression;
// the Draco decoder is fetched at the first Draco file)
const draco = new DRACOLoader().setDecoderPath(new URL('three/examples/jsm/libs/draco/gltf/', location.href).href);
const three = () => ({ THREE, GLTFLoader, loader: new GLTFLoader().setDRACOLoader(draco).setMeshoptDecoder(MeshoptDecoder) });

// A .glb or .gltf by URL, with the .gltf's external buffers and images beside it; a file arbor
// refuses shows arbor's message (and the shown file stays).
async function load(url) {
  const abs = new URL(url, location.href);
  const name = decodeURIComponent(abs.pathname.split('/').pop());
  try {
    return show(name, await ArborThree.load(arbor, abs.href, three()));
  } catch (e) {
    setStatus(`${name}: ${e.message}`, true);
    throw e;
  }
}

async function loadFiles(files) {
  const list = [...files];
  const main = list.find((f) => /\.glb$/i.test(f.name)) || list.find((f) => /\.gltf$/i.test(f.name));
  if (!main) { setStatus('no .glb or .gltf among the files', true); return null; }
  const resources = {};
  for (const f of list) {
    if (f === main) continue;
    const bytes = new Uint8Array(await f.arrayBuffer());
    resources[f.name] = bytes;
    const rel = f.webkitRelativePath || '';
    if (rel.includes('/')) resources[rel.slice(rel.indexOf('/') + 1)] = bytes;
  }
  try {
    const bytes = new Uint8Array(await main.arrayBuffer());
    return show(main.name, await ArborThree.fromBytes(arbor, bytes, { ...three(), resources }));
  } catch (e) {
    setStatus(`${main.name}: ${e.message}`, true);
    return null;
  }
}

$('file').addEventListener('change', () => loadFiles($('file').files));
const view = $('view');
view.addEventListener('dragover', (e) => { e.preventDefault(); view.classList.add('dragging'); });
view.addEventListener('dragleave', () => view.classList.remove('dragging'));
view.addEventListener('drop', (e) => {
  e.preventDefault();
  view.classList.remove('dragging');
  loadFiles(e.dataTransfer.files);
});

window.viewer = {
  load,
  loadFiles,
  get scene() { return state.scene; },
  get bridge() { return state.bridge; },
  play,
  pause: () => setPlaying(false),
  seek,
  three: { renderer, scene: world, camera },
};

const src = new URLSearchParams(location.search).get('src') || 'robot_arm.gltf';
renderer.setAnimationLoop(frame);
load(src).then(() => document.body.setAttribute('data-ready', 'true'), () => document.body.setAttribute('data-ready', 'error'));
