// SPDX-License-Identifier: MIT
// The viewer page (index.html): loads a glTF into arbor's WebAssembly module and shows its
// hierarchy, its meshes (WebGL2), its animations and what a camera's frustum sees.
// window.viewer.load(url) and window.viewer.scene are for scripts and tests.
import { createArbor } from './arbor.mjs';

const $ = (id) => document.getElementById(id);
const arbor = await createArbor();

// ---- Small matrix helpers (column-major 4x4, Float32Array) ----------------------------------

function mul(a, b) {
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      o[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3];
    }
  }
  return o;
}

function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), o = new Float32Array(16);
  o[0] = f / aspect; o[5] = f; o[10] = (far + near) / (near - far); o[11] = -1; o[14] = (2 * far * near) / (near - far);
  return o;
}

function lookAt(eye, target, up) {
  let zx = eye[0] - target[0], zy = eye[1] - target[1], zz = eye[2] - target[2];
  let l = Math.hypot(zx, zy, zz) || 1; zx /= l; zy /= l; zz /= l;
  let xx = up[1] * zz - up[2] * zy, xy = up[2] * zx - up[0] * zz, xz = up[0] * zy - up[1] * zx;
  l = Math.hypot(xx, xy, xz) || 1; xx /= l; xy /= l; xz /= l;
  const yx = zy * xz - zz * xy, yy = zz * xx - zx * xz, yz = zx * xy - zy * xx;
  return new Float32Array([xx, yx, zx, 0, xy, yy, zy, 0, xz, yz, zz, 0,
    -(xx * eye[0] + xy * eye[1] + xz * eye[2]), -(yx * eye[0] + yy * eye[1] + yz * eye[2]),
    -(zx * eye[0] + zy * eye[1] + zz * eye[2]), 1]);
}

function invert(m) {
  const a = Array.from(m), inv = new Float32Array(16);
  // Gauss-Jordan on [a | I], column-major indexing a[c * 4 + r]
  const I = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(a[c * 4 + r]) > Math.abs(a[c * 4 + p])) p = r;
    for (let k = 0; k < 4; k++) {
      [a[k * 4 + c], a[k * 4 + p]] = [a[k * 4 + p], a[k * 4 + c]];
      [I[k * 4 + c], I[k * 4 + p]] = [I[k * 4 + p], I[k * 4 + c]];
    }
    const d = a[c * 4 + c] || 1e-30;
    for (let k = 0; k < 4; k++) { a[k * 4 + c] /= d; I[k * 4 + c] /= d; }
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[c * 4 + r];
      for (let k = 0; k < 4; k++) { a[k * 4 + r] -= f * a[k * 4 + c]; I[k * 4 + r] -= f * I[k * 4 + c]; }
    }
  }
  inv.set(I);
  return inv;
}

function transformPoint(m, x, y, z) {
  const w = m[3] * x + m[7] * y + m[11] * z + m[15];
  return [(m[0] * x + m[4] * y + m[8] * z + m[12]) / w, (m[1] * x + m[5] * y + m[9] * z + m[13]) / w,
    (m[2] * x + m[6] * y + m[10] * z + m[14]) / w];
}

// ---- glTF vertex data (the file's own bytes) ------------------------------------------------

const GLB_MAGIC = 0x46546c67;

function splitGlb(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let json = null, bin = null;
  for (let o = 12; o + 8 <= bytes.length;) {
    const len = dv.getUint32(o, true), type = dv.getUint32(o + 4, true);
    const chunk = bytes.subarray(o + 8, o + 8 + len);
    if (type === 0x4e4f534a && !json) json = JSON.parse(new TextDecoder().decode(chunk));
    else if (type === 0x004e4942 && !bin) bin = chunk;
    o += 8 + len + ((4 - (len % 4)) % 4);
  }
  return { json, bin };
}

function isGlb(bytes) {
  return bytes.length >= 12 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === GLB_MAGIC;
}

function parseDocument(bytes) {
  if (isGlb(bytes)) return splitGlb(bytes);
  return { json: JSON.parse(new TextDecoder().decode(bytes)), bin: null };
}

function dataUri(uri) {
  const comma = uri.indexOf(',');
  const s = atob(uri.slice(comma + 1));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const COMPRESSED = ['KHR_draco_mesh_compression', 'EXT_meshopt_compression', 'KHR_meshopt_compression'];
const COMPONENTS = { 5121: Uint8Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array };

// Triangles of each mesh as { positions: Float32Array, indices: Uint32Array } per primitive, or
// null for a mesh whose vertex data is compressed or not plain floats (drawn as its box).
function extractMeshes(doc, resources) {
  const { json, bin } = doc;
  const buffers = (json.buffers || []).map((b, i) => {
    if (b.uri === undefined) return i === 0 ? bin : null;
    if (b.uri.startsWith('data:')) return dataUri(b.uri);
    return resources[decodeURIComponent(b.uri)] || resources[b.uri] || null;
  });
  const view = (accessorIndex) => {
    const acc = json.accessors?.[accessorIndex];
    if (!acc || acc.sparse || acc.bufferView === undefined) return null;
    const bv = json.bufferViews[acc.bufferView];
    if (!bv || bv.extensions && COMPRESSED.some((e) => bv.extensions[e])) return null;
    const buf = buffers[bv.buffer];
    const Type = COMPONENTS[acc.componentType];
    if (!buf || !Type) return null;
    const size = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[acc.type] || 0;
    const stride = bv.byteStride || size * Type.BYTES_PER_ELEMENT;
    const start = buf.byteOffset + (bv.byteOffset || 0) + (acc.byteOffset || 0);
    const out = new Type(acc.count * size);
    const dv = new DataView(buf.buffer);
    const read = { 5121: 'getUint8', 5123: 'getUint16', 5125: 'getUint32', 5126: 'getFloat32' }[acc.componentType];
    for (let i = 0; i < acc.count; i++) {
      for (let k = 0; k < size; k++) out[i * size + k] = dv[read](start + i * stride + k * Type.BYTES_PER_ELEMENT, true);
    }
    return { acc, data: out };
  };
  return (json.meshes || []).map((mesh) => {
    const prims = [];
    for (const p of mesh.primitives || []) {
      if ((p.mode ?? 4) !== 4) continue;
      if (p.extensions && COMPRESSED.some((e) => p.extensions[e])) return null;
      const pos = p.attributes && view(p.attributes.POSITION);
      if (!pos || pos.acc.componentType !== 5126 || pos.acc.type !== 'VEC3') return null;
      let indices;
      if (p.indices !== undefined) {
        const ix = view(p.indices);
        if (!ix) return null;
        indices = Uint32Array.from(ix.data);
      } else {
        indices = Uint32Array.from({ length: pos.acc.count }, (_, i) => i);
      }
      prims.push({ positions: pos.data, indices });
    }
    return prims.length ? prims : null;
  });
}

// ---- WebGL2 ---------------------------------------------------------------------------------

const canvas = $('canvas');
const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
if (!gl) throw new Error('this browser has no WebGL2');

function program(vs, fs) {
  const p = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}

// Lit triangles: flat normals from the screen-space derivatives of the world position.
const meshProgram = program(`#version 300 es
  layout(location = 0) in vec3 position;
  uniform mat4 viewProjection, model;
  out vec3 world;
  void main() { vec4 w = model * vec4(position, 1.0); world = w.xyz; gl_Position = viewProjection * w; }`,
`#version 300 es
  precision highp float;
  in vec3 world;
  uniform vec3 color;
  out vec4 fragColor;
  void main() {
    vec3 n = normalize(cross(dFdx(world), dFdy(world)));
    float light = 0.35 + 0.65 * abs(dot(n, normalize(vec3(0.4, 0.8, 0.45))));
    fragColor = vec4(color * light, 1.0);
  }`);
const lineProgram = program(`#version 300 es
  layout(location = 0) in vec3 position;
  uniform mat4 viewProjection, model;
  void main() { gl_Position = viewProjection * model * vec4(position, 1.0); }`,
`#version 300 es
  precision highp float;
  uniform vec3 color;
  out vec4 fragColor;
  void main() { fragColor = vec4(color, 1.0); }`);

function geometry(positions, indices) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const vb = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, vb);
  gl.bufferData(gl.ARRAY_BUFFER, positions, gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  const ib = gl.createBuffer();
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, indices, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, count: indices.length, buffers: [vb, ib] };
}

const unitBox = geometry(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]),
  new Uint32Array([0, 1, 1, 2, 2, 3, 3, 0, 4, 5, 5, 6, 6, 7, 7, 4, 0, 4, 1, 5, 2, 6, 3, 7]));
const dynamicLines = { vao: gl.createVertexArray(), vb: gl.createBuffer() };
gl.bindVertexArray(dynamicLines.vao);
gl.bindBuffer(gl.ARRAY_BUFFER, dynamicLines.vb);
gl.enableVertexAttribArray(0);
gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
gl.bindVertexArray(null);

const IDENTITY = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

function drawLines(points, color, viewProjection) {
  gl.useProgram(lineProgram);
  gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'viewProjection'), false, viewProjection);
  gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'model'), false, IDENTITY);
  gl.uniform3fv(gl.getUniformLocation(lineProgram, 'color'), color);
  gl.bindVertexArray(dynamicLines.vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, dynamicLines.vb);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(points), gl.STREAM_DRAW);
  gl.drawArrays(gl.LINES, 0, points.length / 3);
}

// ---- State ----------------------------------------------------------------------------------

const state = {
  scene: null, name: '', meshes: [], gpu: [], selected: -1,
  clip: -1, player: null, playing: false, time: 0, last: 0,
  orbit: { yaw: 0.6, pitch: 0.45, distance: 5, target: [0, 0, 0] },
  frozen: null, cull: { tests: 0, visible: 0, ms: 0, nodes: new Int32Array(0) },
};

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function release() {
  for (const g of state.gpu) for (const p of g || []) { gl.deleteVertexArray(p.vao); p.buffers.forEach((b) => gl.deleteBuffer(b)); }
  state.gpu = [];
  if (state.player) state.player.dispose();
  state.player = null;
  if (state.scene) state.scene.dispose();
  state.scene = null;
}

// Loads file bytes and its resources into arbor and the page; returns the Scene (rest pose).
function show(name, bytes, resources) {
  const scene = arbor.loadGltf(bytes, { resources }); // throws arbor's message: the old scene stays
  let meshes = [];
  try {
    meshes = extractMeshes(parseDocument(bytes), resources);
  } catch (e) {
    meshes = [];
  }
  release();
  Object.assign(state, { scene, name, meshes, selected: -1, playing: false, time: 0, clip: -1, frozen: null });
  $('freeze').checked = false;
  state.gpu = meshes.map((prims) => prims && prims.map((p) => geometry(p.positions, p.indices)));
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

function ensurePlayer() {
  const index = Number($('clip').value);
  if (!state.player || state.clip !== index) {
    if (state.player) state.player.dispose();
    state.player = state.scene.player(index);
    state.clip = index;
    $('scrub').max = Math.max(state.player.clip.duration, 0.001);
  }
  return state.player;
}

function applyTime(t) {
  const p = ensurePlayer();
  const d = p.clip.duration || 1;
  state.time = ((t % d) + d) % d;
  p.apply(state.time);
  $('scrub').value = state.time;
  $('time').textContent = `${state.time.toFixed(2)} s`;
  if (state.selected >= 0) showDetails();
}

$('play').addEventListener('click', () => {
  if (!state.scene || !state.scene.clips.length) return;
  state.playing = !state.playing;
  $('play').textContent = state.playing ? 'Pause' : 'Play';
  if (state.playing) { ensurePlayer(); state.last = performance.now(); }
});
$('scrub').addEventListener('input', () => { if (state.scene) applyTime(Number($('scrub').value)); });
$('clip').addEventListener('change', () => {
  state.time = 0;
  $('scrub').max = Math.max(state.scene.clips[Number($('clip').value)].duration, 0.001);
  if (state.playing) applyTime(0);
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

// ---- Camera ---------------------------------------------------------------------------------

// Frames the scene: the box of the nodes' world boxes, or of their origins when none has a box.
function frameScene() {
  const scene = state.scene, n = scene.nodeCount;
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const grow = (p) => { for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); } };
  for (let i = 0; i < n; i++) {
    const b = scene.node(i).worldBounds;
    if (b) { grow(b.min); grow(b.max); }
  }
  if (!Number.isFinite(lo[0])) {
    const world = scene.worldMatrices();
    for (let i = 0; i < n; i++) grow([world[16 * i + 12], world[16 * i + 13], world[16 * i + 14]]);
  }
  if (!Number.isFinite(lo[0])) { lo.fill(-1); hi.fill(1); }
  const radius = Math.max(Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2, 0.5);
  state.orbit.target = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
  state.orbit.distance = radius * 2.6;
  state.orbit.radius = radius;
}

function camera(aspect) {
  const o = state.orbit;
  const eye = [o.target[0] + o.distance * Math.cos(o.pitch) * Math.sin(o.yaw), o.target[1] + o.distance * Math.sin(o.pitch),
    o.target[2] + o.distance * Math.cos(o.pitch) * Math.cos(o.yaw)];
  const r = o.radius || 1;
  const near = Math.max(o.distance - 4 * r, o.distance / 1000, 1e-4), far = o.distance + 4 * r;
  return mul(perspective(Math.PI / 4, aspect, near, far), lookAt(eye, o.target, [0, 1, 0]));
}

let drag = null;
canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener('pointerup', () => { drag = null; });
canvas.addEventListener('pointermove', (e) => {
  if (!drag) return;
  state.orbit.yaw -= (e.clientX - drag.x) * 0.01;
  state.orbit.pitch = Math.max(-1.55, Math.min(1.55, state.orbit.pitch + (e.clientY - drag.y) * 0.01));
  drag = { x: e.clientX, y: e.clientY };
});
canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  state.orbit.distance *= Math.exp(e.deltaY * 0.001);
}, { passive: false });
$('freeze').addEventListener('change', () => { state.frozen = null; });

// ---- Drawing --------------------------------------------------------------------------------

function frustumLines(viewProjection) {
  const inv = invert(viewProjection), c = [];
  for (const z of [-1, 1]) for (const y of [-1, 1]) for (const x of [-1, 1]) c.push(transformPoint(inv, x, y, z));
  const edges = [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];
  return edges.flatMap(([a, b]) => [...c[a], ...c[b]]);
}

function gridLines() {
  const r = state.orbit.radius || 1, step = 10 ** Math.floor(Math.log10(r)), n = Math.ceil((2 * r) / step);
  const y = 0, pts = [];
  for (let k = -n; k <= n; k++) {
    pts.push(k * step, y, -n * step, k * step, y, n * step, -n * step, y, k * step, n * step, y, k * step);
  }
  return pts;
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.floor(canvas.clientWidth * dpr)), h = Math.max(1, Math.floor(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  gl.viewport(0, 0, w, h);
  gl.clearColor(0.16, 0.16, 0.16, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  const scene = state.scene;
  if (!scene) return;
  const vp = camera(w / h);
  if ($('freeze').checked && !state.frozen) state.frozen = vp;
  if (!$('freeze').checked) state.frozen = null;
  const cullVp = state.frozen || vp;

  drawLines(gridLines(), [0.3, 0.3, 0.3], vp);
  state.cull = scene.cull(cullVp);
  // performance.now() is coarse (0.1 ms without cross-origin isolation): average over frames
  state.cullMs = state.cullMs === undefined ? state.cull.ms : 0.95 * state.cullMs + 0.05 * state.cull.ms;
  const visible = new Uint8Array(scene.nodeCount);
  for (const i of state.cull.nodes) visible[i] = 1;

  const world = scene.worldMatrices(); // one view, read before anything else writes
  const locView = gl.getUniformLocation(meshProgram, 'viewProjection');
  const locModel = gl.getUniformLocation(meshProgram, 'model');
  const locColor = gl.getUniformLocation(meshProgram, 'color');
  const boxes = [];
  const links = [];
  const markers = [];
  for (let i = 0; i < scene.nodeCount; i++) {
    const m = world.subarray(16 * i, 16 * i + 16);
    const mesh = scene.node(i).mesh;
    const prims = mesh >= 0 ? state.gpu[mesh] : null;
    if (prims && visible[i]) {
      gl.useProgram(meshProgram);
      gl.uniformMatrix4fv(locView, false, vp);
      gl.uniformMatrix4fv(locModel, false, m);
      gl.uniform3fv(locColor, i === state.selected ? [0.95, 0.75, 0.3] : [0.45, 0.62, 0.85]);
      for (const p of prims) {
        gl.bindVertexArray(p.vao);
        gl.drawElements(gl.TRIANGLES, p.count, gl.UNSIGNED_INT, 0);
      }
    } else if (mesh >= 0 || !visible[i]) {
      const b = scene.node(i).localBounds;
      if (b) boxes.push([m, b, visible[i]]);
    }
    const p = scene.node(i).parent;
    if (p) links.push(world[16 * p.index + 12], world[16 * p.index + 13], world[16 * p.index + 14], m[12], m[13], m[14]);
    if (mesh >= 0) continue; // a node without a mesh is drawn as a cross at its origin
    const s = 0.03 * (state.orbit.radius || 1);
    markers.push(m[12] - s, m[13], m[14], m[12] + s, m[13], m[14], m[12], m[13] - s, m[14], m[12], m[13] + s, m[14],
      m[12], m[13], m[14] - s, m[12], m[13], m[14] + s);
  }
  gl.useProgram(lineProgram);
  gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'viewProjection'), false, vp);
  for (const [m, b, vis] of boxes) {
    const box = new Float32Array([b.max[0] - b.min[0], 0, 0, 0, 0, b.max[1] - b.min[1], 0, 0, 0, 0, b.max[2] - b.min[2], 0,
      b.min[0], b.min[1], b.min[2], 1]);
    gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'model'), false, mul(m, box));
    gl.uniform3fv(gl.getUniformLocation(lineProgram, 'color'), vis ? [0.45, 0.85, 0.55] : [0.85, 0.3, 0.3]);
    gl.bindVertexArray(unitBox.vao);
    gl.drawElements(gl.LINES, unitBox.count, gl.UNSIGNED_INT, 0);
  }
  if (links.length) drawLines(links, [0.6, 0.45, 0.25], vp);
  drawLines(markers, [1.0, 0.55, 0.1], vp);
  if (state.frozen) drawLines(frustumLines(state.frozen), [0.9, 0.9, 0.3], vp);
  gl.bindVertexArray(null);

  $('overlay').textContent = `${state.name}\nnodes tested ${state.cull.tests}\nvisible ${state.cull.nodes.length}` +
    ` of ${scene.nodeCount}\ncull time ${(state.cullMs * 1000).toFixed(1)} us (average)`;
}

function frame(now) {
  try {
    if (state.playing && state.scene) {
      applyTime(state.time + (now - state.last) / 1000);
      state.last = now;
    }
    draw();
  } catch (e) {
    setStatus(e.message, true);
    state.playing = false;
  }
  requestAnimationFrame(frame);
}

// ---- Loading: URL, file picker, drag and drop -------------------------------------------------

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

// A .glb or .gltf by URL, with the .gltf's external buffers and images beside it.
async function load(url) {
  const abs = new URL(url, location.href);
  const name = decodeURIComponent(abs.pathname.split('/').pop());
  try {
    const bytes = await fetchBytes(abs);
    const resources = {};
    if (!isGlb(bytes)) {
      const json = JSON.parse(new TextDecoder().decode(bytes));
      const uris = [...(json.buffers || []), ...(json.images || [])].map((b) => b.uri)
        .filter((u) => u && !u.startsWith('data:') && !/^[a-z][a-z0-9+.-]*:/i.test(u));
      await Promise.all(uris.map(async (u) => { resources[decodeURIComponent(u)] = await fetchBytes(new URL(u, abs)); }));
    }
    return show(name, bytes, resources);
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
    return show(main.name, new Uint8Array(await main.arrayBuffer()), resources);
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
  get scene() { return state.scene; },
  loadFiles,
};

const src = new URLSearchParams(location.search).get('src') || 'robot_arm.gltf';
requestAnimationFrame(frame);
load(src).then(() => document.body.setAttribute('data-ready', 'true'), () => document.body.setAttribute('data-ready', 'error'));
