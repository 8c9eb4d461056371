// SPDX-License-Identifier: MIT
// The workloads of ../shared/bench/WORKLOADS.md for the JavaScript peers, drawn exactly as
// bench/workloads.h draws them for the C programs (splitmix64 in BigInt, same streams, same
// creation order), plus the frame loop and the JSON lines the peers print.
//
// A peer module gives an object with:
//   name                              the "peer" of its JSON lines
//   build(w)      -> scene            every node created in creation order, then one update
//   update(scene)                     the per-frame update a user of that library calls
//   setRotation(scene, i, q, o)       q[o..o+3] is (x, y, z, w)
//   setTranslation(scene, i, x, y, z)
//   world(scene, i) -> elements       node i's world matrix, 16 numbers, translation at 12..14
//   dispose(scene)
// and runPeer(peer, process.argv) does the rest.

const MASK = (1n << 64n) - 1n;

export class SplitMix64 {
  constructor() {
    this.state = 0x5eedn;
  }
  next() {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }
  uniform() {
    return Number(this.next() >> 40n) * 2 ** -24;
  }
  sym() {
    return 2 * this.uniform() - 1;
  }
  // (sym, sym, sym, sym) normalised into out[o..o+3]; identity when shorter than 1e-6.
  quat(out, o) {
    const x = this.sym(), y = this.sym(), z = this.sym(), w = this.sym();
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (len < 1e-6) {
      out[o] = out[o + 1] = out[o + 2] = 0;
      out[o + 3] = 1;
    } else {
      out[o] = x / len;
      out[o + 1] = y / len;
      out[o + 2] = z / len;
      out[o + 3] = w / len;
    }
  }
}

// 59-node skeleton: each bone's parent (-1: the hips).
export const SKELETON_PARENT = [
  -1, 0, 1, 2, 3, 4, 5, 6, 7,
  5, 9, 10, 11,
  12, 13, 14, 12, 16, 17, 12, 19, 20, 12, 22, 23, 12, 25, 26,
  5, 28, 29, 30,
  31, 32, 33, 31, 35, 36, 31, 38, 39, 31, 41, 42, 31, 44, 45,
  0, 47, 48, 49, 50, 51,
  0, 53, 54, 55, 56, 57,
];

export function makeShape(name, size = 0, length = 0) {
  if (name === 'skeletons') {
    const k = size || 16949;
    return { name, size: k, length: 0, count: k * 59 };
  }
  if (name === 'random') {
    const n = size || 1000000;
    return { name, size: n, length: 0, count: n };
  }
  if (name === 'chains') {
    const c = size || 1000, l = length || 1000;
    return { name, size: c, length: l, count: c * l };
  }
  throw new Error(`unknown shape '${name}'`);
}

// Draws node i: returns its parent (-1 for a root), writes its TRS into t, r at offset 3i / 4i
// and its scale into s[i] (arrays of length >= i + 1 nodes; pass small scratch arrays with
// i = 0 for streaming).
export function drawNode(g, shape, i, t, r, s, slot = i) {
  let parent = -1;
  if (shape.name === 'skeletons') {
    const bone = i % 59;
    if (bone) parent = i - bone + SKELETON_PARENT[bone];
  } else if (shape.name === 'random') {
    if (i) parent = Math.floor(g.uniform() * i);
  } else if (i % shape.length) {
    parent = i - 1;
  }
  t[3 * slot] = g.sym();
  t[3 * slot + 1] = g.sym();
  t[3 * slot + 2] = g.sym();
  g.quat(r, 4 * slot);
  s[slot] = 0.9 + 0.2 * g.uniform();
  return parent;
}

export function isMoved(shape, i) {
  if (shape.name === 'skeletons') return i % (100 * 59) === 0;
  if (shape.name === 'chains') return i % (100 * shape.length) === 0;
  return i % 10000 === 0;
}

// The shape, then the 4 rotation sets; the nodes move_roots writes and how many nodes sit at or
// under one of them.
export function generate(shape) {
  const n = shape.count;
  const w = {
    shape,
    count: n,
    parent: new Int32Array(n),
    t: new Float64Array(3 * n),
    r: new Float64Array(4 * n),
    s: new Float64Array(n),
    rot: [],
  };
  const g = new SplitMix64();
  for (let i = 0; i < n; i++) w.parent[i] = drawNode(g, shape, i, w.t, w.r, w.s);
  for (let k = 0; k < 4; k++) {
    const set = new Float64Array(4 * n);
    for (let i = 0; i < n; i++) g.quat(set, 4 * i);
    w.rot.push(set);
  }
  const mark = new Uint8Array(n);
  w.moved = [];
  w.changed = 0;
  for (let i = 0; i < n; i++) {
    const moved = isMoved(shape, i);
    if (moved) w.moved.push(i);
    mark[i] = moved || (w.parent[i] >= 0 && mark[w.parent[i]]) ? 1 : 0;
    w.changed += mark[i];
  }
  w.leaf = n - 1;
  return w;
}

const WARMUP = 2;
const FRAMES = 31;
const SLOW_FRAMES = 5; // WORKLOADS.md: at least 5 frames for anything slower than a second per frame

const now = () => Number(process.hrtime.bigint()) * 1e-9;

function median(v) {
  const a = [...v].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : 0.5 * (a[m - 1] + a[m]);
}

function unitOf(metric) {
  if (metric === 'static' || metric === 'leaf') return 'us/frame';
  if (metric === 'memory') return 'B/node';
  return 'ns/node';
}

function print(opts, rec) {
  const line = {
    peer: rec.peer,
    shape: rec.shape.name,
    metric: rec.metric,
    value: Number(rec.value.toPrecision(6)),
    unit: unitOf(rec.metric),
    frames: rec.frames,
    nodes: rec.shape.count,
    ...(rec.checksum !== undefined ? { checksum: Number(rec.checksum.toPrecision(9)) } : {}),
    ...(rec.min !== undefined ? { min: Number(rec.min.toPrecision(6)) } : {}),
    ...(rec.extra || {}),
  };
  if (opts.json) {
    console.log(JSON.stringify(line));
  } else {
    const how = rec.metric === 'memory'
      ? `peak resident set over ${line.nodes} nodes`
      : `median of ${rec.frames} frames after ${WARMUP} warm-up, ${line.nodes} nodes`;
    const sum = rec.checksum !== undefined ? `, checksum ${line.checksum}` : '';
    console.log(`${rec.peer}: ${line.shape} ${rec.metric}: ${line.value.toPrecision(4)} ${line.unit} (${how}${sum})`);
  }
}

function checksum(peer, scene, n) {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const m = peer.world(scene, i);
    sum += Math.abs(m[12]) + Math.abs(m[13]) + Math.abs(m[14]);
  }
  return sum;
}

// Runs body(k) for the warm-up frames and the timed ones; body returns the seconds it timed.
// The frame count drops to SLOW_FRAMES (unless --frames was given) when a warm-up frame takes
// more than a second.
function timeFrames(opts, body) {
  const times = [];
  let slow = false;
  for (let k = 0; k < WARMUP; k++) slow = body(k) > 1 || slow;
  const frames = opts.frames || (slow ? SLOW_FRAMES : FRAMES);
  for (let k = WARMUP; k < WARMUP + frames; k++) times.push(body(k));
  return { median: median(times), min: Math.min(...times), frames };
}

function parseArgs(argv) {
  const opts = { shape: 'skeletons', frame: 'all', size: 0, length: 0, frames: 0, json: false };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--shape') opts.shape = argv[++i];
    else if (a === '--frame') opts.frame = argv[++i];
    else if (a === '--size') opts.size = Number(argv[++i]);
    else if (a === '--length') opts.length = Number(argv[++i]);
    else if (a === '--frames') opts.frames = Number(argv[++i]);
    else throw new Error(`unknown argument '${a}'`);
  }
  return opts;
}

const ALL = ['animate', 'static', 'move_roots', 'leaf', 'read_all', 'build'];

// --frame F runs one frame, --frame all (the default) every frame but memory: build first (a
// fresh scene per frame), then the others in the order of ALL on the last scene built (each
// frame leaves the scene current for the next). --frame memory alone builds the scene straight
// from the stream and reports the peak resident set over the node count.
export function runPeer(peer, argv) {
  const opts = parseArgs(argv);
  const shape = makeShape(opts.shape, opts.size, opts.length);
  const base = { peer: peer.name, shape };
  if (opts.frame === 'memory') {
    const g = new SplitMix64();
    const n = shape.count;
    const w = { shape, count: n, t: [0, 0, 0], r: [0, 0, 0, 1], s: [1], streaming: g };
    const scene = peer.build(w);
    const value = (process.resourceUsage().maxRSS * 1024) / n;
    print(opts, { ...base, metric: 'memory', value, frames: 1, checksum: checksum(peer, scene, n) });
    return;
  }
  const frames = opts.frame === 'all' ? ALL : [opts.frame];
  for (const f of frames) if (!ALL.includes(f)) throw new Error(`unknown frame '${f}'`);
  const w = generate(shape);
  const n = w.count;
  // build goes first when asked for: its first warm-up frame is then the scene's first build
  // (nothing is built twice) and its last build is the scene the other frames use.
  const order = frames.includes('build') ? ['build', ...frames.filter((f) => f !== 'build')] : frames;
  let scene = null;
  let sum = 0;
  if (order[0] !== 'build') {
    scene = peer.build(w);
    sum = checksum(peer, scene, n);
  }
  let sink = 0;
  for (const metric of order) {
    let r, value, extra;
    if (metric === 'animate') {
      r = timeFrames(opts, (k) => {
        const q = w.rot[k % 4];
        const t0 = now();
        for (let i = 0; i < n; i++) peer.setRotation(scene, i, q, 4 * i);
        peer.update(scene);
        return now() - t0;
      });
      value = (r.median * 1e9) / n;
    } else if (metric === 'static') {
      r = timeFrames(opts, () => {
        const t0 = now();
        peer.update(scene);
        return now() - t0;
      });
      value = r.median * 1e6;
    } else if (metric === 'move_roots') {
      r = timeFrames(opts, (k) => {
        const d = 0.001 * ((k % 4) + 1);
        const t0 = now();
        for (const i of w.moved) peer.setTranslation(scene, i, w.t[3 * i] + d, w.t[3 * i + 1] + d, w.t[3 * i + 2] + d);
        peer.update(scene);
        return now() - t0;
      });
      value = (r.median * 1e9) / w.changed;
      extra = { changed: w.changed, written: w.moved.length };
    } else if (metric === 'leaf') {
      r = timeFrames(opts, (k) => {
        const t0 = now();
        peer.setRotation(scene, w.leaf, w.rot[k % 4], 4 * w.leaf);
        peer.update(scene);
        const x = peer.world(scene, w.leaf)[12];
        const t1 = now();
        sink += x;
        return t1 - t0;
      });
      value = r.median * 1e6;
    } else if (metric === 'read_all') {
      peer.update(scene);
      r = timeFrames(opts, () => {
        let s = 0;
        const t0 = now();
        for (let i = 0; i < n; i++) {
          s += peer.world(scene, i)[12];
        }
        const t1 = now();
        sink += s;
        return t1 - t0;
      });
      value = (r.median * 1e9) / n;
    } else if (metric === 'build') {
      r = timeFrames(opts, (k) => {
        if (scene) {
          peer.dispose(scene);
          scene = null;
          if (globalThis.gc) globalThis.gc(); // the last scene's garbage is not this build's cost
        }
        const t0 = now();
        scene = peer.build(w);
        const t1 = now();
        if (k === 0) sum = checksum(peer, scene, n);
        return t1 - t0;
      });
      value = (r.median * 1e9) / n;
    }
    const min = r.median ? (r.min * value) / r.median : 0;
    print(opts, { ...base, metric, value, min, frames: r.frames, checksum: sum, extra });
  }
  if (sink === 12345.678) console.error('');
  peer.dispose(scene);
}

// For peer.build: node i's parent and TRS, from the arrays or, for the memory frame, straight
// from the stream (w.streaming), in which case the returned arrays are scratch and offsets 0.
export function nodeAt(w, i) {
  if (w.streaming) {
    const p = drawNode(w.streaming, w.shape, i, w.t, w.r, w.s, 0);
    return [p, 0];
  }
  return [w.parent[i], i];
}

// The installed version of an npm package of bench/peers.
import { readFileSync } from 'node:fs';
export function packageVersion(name) {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}
