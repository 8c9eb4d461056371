// SPDX-License-Identifier: MIT
// arbor in the browser: the C library compiled to WebAssembly (arbor_core.wasm, with its glTF part
// and jansson) and this small module around it.
//
//   import { createArbor } from './arbor.mjs';
//   const arbor = await createArbor();
//   const scene = arbor.loadGltf(bytes, { resources });   // .glb, or .gltf + { 'scene.bin': bytes }
//   const hand = scene.find('/base/joint/arm/hand');
//   scene.node(0).setRotation(0, 0.7071, 0, 0.7071);
//   hand.worldMatrix;                                      // current, no update() needed
//   scene.update();                                        // the whole frame in one batch
//   scene.dispose();
//
// Types: arbor.d.ts. Every failure throws an Error with arbor's message.

import createArborCore from './arbor_core.mjs';

// The glue functions of arbor_web.c: the only place this module reaches into the WebAssembly.
function bind(core) {
  const c = {};
  for (const name of Object.keys(core)) {
    if (name.startsWith('_aw_')) c[name.slice(4)] = core[name];
  }
  c.malloc = core._malloc;
  c.free = core._free;
  return c;
}

class ArborError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'ArborError';
    this.code = code;
  }
}

let loads = 0; // each load's external files go to their own MEMFS folder

/** The module: create with `await createArbor()`. */
class Arbor {
  constructor(core) {
    this._core = core;
    this._c = bind(core);
    this._scratch = this._c.malloc(256); // out parameters of single calls (16-byte aligned)
  }

  get _f32() { return this._core.HEAPF32; }
  get _i32() { return this._core.HEAP32; }
  get _u32() { return this._core.HEAPU32; }

  _message(fallback) {
    return this._core.UTF8ToString(this._c.message()) || fallback;
  }

  _check(code) {
    if (code !== 0) throw new ArborError(this._message(`arbor error ${code}`), code);
  }

  // A NUL-terminated copy of s in the module's memory; free with this._c.free.
  _string(s) {
    const n = this._core.lengthBytesUTF8(s) + 1;
    const p = this._c.malloc(n);
    this._core.stringToUTF8(s, p, n);
    return p;
  }

  // Node indices that fill(out, cap) writes (at most the scene's node count).
  _indices(fill, scene) {
    const cap = Math.max(this._c.node_count(scene._ptr()), 1);
    const p = this._c.malloc(4 * cap);
    try {
      const n = fill(p, cap);
      return Array.from(this._i32.subarray(p >> 2, (p >> 2) + Math.min(n, cap)));
    } finally {
      this._c.free(p);
    }
  }

  /**
   * Loads a .gltf or .glb. bytes: Uint8Array of the file; options.resources: for a .gltf, its
   * external files by relative URI ({ 'robot.bin': Uint8Array }). Returns a Scene.
   */
  loadGltf(bytes, options = {}) {
    if (!(bytes instanceof Uint8Array)) throw new ArborError('loadGltf: bytes must be a Uint8Array', 1);
    const FS = this._core.FS;
    const dir = `/load${++loads}`;
    const written = [];
    const resources = options.resources || {};
    const entries = resources instanceof Map ? [...resources] : Object.entries(resources);
    FS.mkdir(dir);
    let data = 0, base = 0;
    try {
      for (const [uri, content] of entries) {
        const path = `${dir}/${decodeURIComponent(uri)}`;
        const parts = path.split('/');
        for (let k = 2; k < parts.length - 1; k++) {
          const sub = parts.slice(0, k + 1).join('/');
          if (!FS.analyzePath(sub).exists) FS.mkdir(sub);
        }
        FS.writeFile(path, content);
        written.push(path);
      }
      data = this._c.malloc(bytes.length || 1);
      this._core.HEAPU8.set(bytes, data);
      base = this._string(dir);
      const ptr = this._c.load(data, bytes.length, base);
      if (!ptr) throw new ArborError(this._message('glTF load failed'), 2);
      return new Scene(this, ptr);
    } finally {
      this._c.free(data);
      this._c.free(base);
      for (const p of written.reverse()) FS.unlink(p);
      removeTree(FS, dir);
    }
  }

  /** An empty scene, to build in code with scene.addNode. */
  createScene() {
    const ptr = this._c.create();
    if (!ptr) throw new ArborError(this._message('out of memory'), 3);
    return new Scene(this, ptr);
  }
}

function removeTree(FS, dir) {
  // folders only (the files were unlinked): deepest first
  const dirs = [dir];
  for (let k = 0; k < dirs.length; k++) {
    for (const e of FS.readdir(dirs[k])) {
      if (e !== '.' && e !== '..') dirs.push(`${dirs[k]}/${e}`);
    }
  }
  for (const d of dirs.reverse()) FS.rmdir(d);
}

/** A scene: the nodes of a glTF file in file order, or those made with addNode. */
class Scene {
  constructor(arbor, ptr) {
    this._a = arbor;
    this._p = ptr;
    this._nodes = [];
    this._clips = null;
    this._players = new Set();
    this._skins = null;
    this._argsCap = 0; // frame()'s arguments in the module's memory
    this.structureVersion = 0; // counts reparents and visibility changes (ArborThree reads it)
    this.layout = 0; // counts changes that move the arrays of worldMatrices() and skinMatrices() (addCopies)
  }

  _ptr() {
    if (!this._p) throw new ArborError('the scene was disposed', 1);
    return this._p;
  }

  /** How many nodes the scene has (the file's nodes, in file order). */
  get nodeCount() { return this._a._c.node_count(this._ptr()); }

  /** Node i (the file's node index), or throws when out of range. */
  node(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.nodeCount) {
      throw new ArborError(`node index ${i} is out of range (the scene has ${this.nodeCount} nodes)`, 1);
    }
    return this._nodes[i] || (this._nodes[i] = new Node(this, i));
  }

  /** The node at a path of names ("/base/joint/arm"), or null. */
  find(path) {
    const a = this._a, p = a._string(String(path));
    try {
      const i = a._c.find(this._ptr(), p);
      return i >= 0 ? this.node(i) : null;
    } finally {
      a._c.free(p);
    }
  }

  /** The roots in order. */
  get roots() {
    return this._a._indices((out, cap) => this._a._c.roots(this._ptr(), out, cap), this).map((i) => this.node(i));
  }

  /** A new node; returns it. parent: a Node or null; rotation (x, y, z, w) is normalised. */
  addNode({ name = null, parent = null, translation = [0, 0, 0], rotation = [0, 0, 0, 1], scale = [1, 1, 1] } = {}) {
    const a = this._a, s = a._scratch >> 2, f = a._f32;
    f.set(translation, s);
    f.set(rotation, s + 3);
    f.set(scale, s + 7);
    const np = name == null ? 0 : a._string(String(name));
    try {
      const i = a._c.add_node(this._ptr(), parent ? parent.index : -1, np, a._scratch, a._scratch + 12, a._scratch + 28);
      if (i < 0) a._check(1);
      return this.node(i);
    } finally {
      if (np) a._c.free(np);
    }
  }

  /** Brings every world matrix up to date in one batch (reads are current without it). */
  update() { this._a._c.update(this._ptr()); }

  /**
   * Every node's world matrix, 16 floats each (column-major) in node index order, after an
   * update. A view into the module's memory, not a copy: valid until the next write to this
   * scene or to the module (a later call may move or overwrite it). Copy it (slice()) to keep it.
   */
  worldMatrices() {
    const n = this.nodeCount, p = this._a._c.world_matrices(this._ptr());
    if (!p && n) this._a._check(1);
    return new Float32Array(this._a._core.HEAPF32.buffer, p, 16 * n);
  }

  _bulk(fn, per, values, first) {
    const a = this._a, count = Math.floor(values.length / per);
    const p = a._c.staging(this._ptr(), count * per);
    if (!p && count) a._check(1);
    const used = values.length === count * per ? values
      : ArrayBuffer.isView(values) ? values.subarray(0, count * per) : Array.prototype.slice.call(values, 0, count * per);
    a._f32.set(used, p >> 2);
    a._check(fn(this._p, first, count));
  }

  /** Bulk writes: nodes first, first + 1, ... take values (x, y, z, w per node for rotations). */
  setRotations(values, first = 0) { this._bulk(this._a._c.set_rotations, 4, values, first); }
  setTranslations(values, first = 0) { this._bulk(this._a._c.set_translations, 3, values, first); }
  setScales(values, first = 0) { this._bulk(this._a._c.set_scales, 3, values, first); }

  /**
   * Hierarchical culling: the nodes with a box that the frustum of viewProjection (16 floats,
   * column-major, OpenGL clip space) sees. Returns { nodes: Int32Array of node indices, tests:
   * box tests, ms: time taken }.
   */
  cull(viewProjection) {
    const a = this._a, s = a._scratch;
    a._f32.set(viewProjection, (s >> 2) + 16);
    const t0 = performance.now();
    const p = a._c.cull(this._ptr(), s + 64, s);
    const ms = performance.now() - t0;
    if (!p) a._check(1);
    const tests = a._u32[s >> 2], count = a._u32[(s >> 2) + 1];
    return { nodes: a._i32.slice(p >> 2, (p >> 2) + count), tests, ms };
  }

  /** The view-projection of the file's camera at node (a Node), for an aspect ratio. */
  cameraViewProjection(node, aspect) {
    const a = this._a;
    a._check(a._c.camera_view_projection(this._ptr(), node.index, aspect, a._scratch));
    return a._f32.slice(a._scratch >> 2, (a._scratch >> 2) + 16);
  }

  /** The file's animations as clips: [{ index, name, duration }] (seconds). */
  get clips() {
    if (!this._clips) {
      const a = this._a, n = a._c.animation_count(this._ptr());
      this._clips = [];
      for (let i = 0; i < n; i++) {
        const np = a._c.animation_name(this._p, i);
        const name = np ? a._core.UTF8ToString(np) : `animation ${i}`;
        const ptr = a._c.clip(this._p, i);
        if (!ptr) a._check(1);
        this._clips.push(new Clip(this, i, name, ptr));
      }
    }
    return this._clips;
  }

  /**
   * A player of a clip (a Clip, its index or its name) on this scene's nodes from index first
   * on: the file's nodes (first 0), or a copy of them (addCopies). The Clip may be another
   * scene's, which must then outlive the player.
   */
  player(clip, first = 0) {
    const c = clip instanceof Clip ? clip : typeof clip === 'number' ? this.clips[clip] : this.clips.find((k) => k.name === clip);
    if (!c) throw new ArborError(`no animation ${JSON.stringify(clip)} in this scene`, 1);
    const ptr = this._a._c.player(this._ptr(), c._p, first);
    if (!ptr) this._a._check(1);
    const p = new Player(this, c, ptr);
    this._players.add(p);
    return p;
  }

  /**
   * Copies of every node of another scene (a loaded file, say), for crowds: copy k is source's
   * roots with their subtrees, under parents[k] (a Node of this scene, or null for roots); node i
   * of copy k is node base + k * source.nodeCount + i here, base being this scene's node count
   * before the call, which is returned. The source's skins are copied onto each copy's nodes;
   * its clips play on copy k with player(clip, base + k * source.nodeCount).
   */
  addCopies(source, parents) {
    const a = this._a, count = parents.length, p = a._c.malloc(4 * count + 4);
    try {
      a._i32.set(Array.from(parents, (n) => (n ? n.index : -1)), p >> 2);
      const base = a._c.copy(this._ptr(), source._ptr(), p, count);
      if (base < 0) a._check(1);
      this._skins = null;
      this.layout++;
      return base;
    } finally {
      a._c.free(p);
    }
  }

  /**
   * One frame in one call: players (a Player, an array of them, or null) pose their nodes at
   * time (a number, or one time per player: an array or Float64Array), looping unless loop is
   * false, then every world matrix is brought up to date and, once `skins` was read, every
   * joint matrix. Returns worldMatrices() (a view: see there); skinMatrices() holds the
   * joints' matrices. Refused as a whole, nothing posed, when any player would be.
   */
  frame(players, time = 0, loop = true, placed = false) {
    const a = this._a, list = players == null ? [] : Array.isArray(players) ? players : [players], count = list.length;
    if (count > this._argsCap) {
      const s = a._scratch;
      this._argsPlayers = a._c.frame_args(this._ptr(), count, s);
      if (!this._argsPlayers) a._check(1);
      this._argsTimes = a._u32[s >> 2];
      this._argsCap = count;
    }
    if (count) {
      const i32 = a._i32, f64 = a._core.HEAPF64, pp = this._argsPlayers >> 2, tp = this._argsTimes >> 3;
      for (let k = 0; k < count; k++) i32[pp + k] = list[k]._ptr();
      if (typeof time === 'number') f64.fill(time, tp, tp + count);
      else if (time instanceof Float64Array) f64.set(time.length === count ? time : time.subarray(0, count), tp);
      else for (let k = 0; k < count; k++) f64[tp + k] = time[k];
    }
    const p = a._c.frame(this._ptr(), count, loop ? 1 : 0, placed ? 1 : 0);
    if (!p && this.nodeCount) a._check(1);
    return new Float32Array(a._core.HEAPF32.buffer, p, 16 * this.nodeCount);
  }

  /**
   * Placement of blocks of nodes by matrices kept outside the scene (ArborThree's: a crowd's
   * copies, or a file's nodes, placed where three.js puts them, with their world and joint
   * matrices as exact in float as the file's own wherever they stand): `blocks` blocks of `size`
   * nodes from node first. Returns { matrices, placed }: block k's matrix is matrices[16k ..
   * 16k + 15] (column-major; identities at first: write them), and placed holds 16 floats a node
   * (the nodes there are now) that frame(..., placed = true) fills with block k's matrix times
   * the world matrix of each node of block k, the world matrix elsewhere. Views as
   * worldMatrices(); placementViews() gives them again (after the module's memory grew).
   */
  placement(first, size, blocks) {
    const a = this._a, p = a._c.placement(this._ptr(), first, size, blocks);
    if (!p) a._check(1);
    this._place = { p, blocks, nodes: this.nodeCount };
    return this.placementViews();
  }

  /** The views of the last placement(), made again. */
  placementViews() {
    const { p, blocks, nodes } = this._place, b = this._a._core.HEAPF32.buffer;
    return { matrices: new Float32Array(b, p, 16 * blocks), placed: new Float32Array(b, p + 64 * blocks, 16 * nodes) };
  }

  /** Every node's effective visibility (1: it and its ancestors are shown), a view as worldMatrices. */
  visibility() {
    const a = this._a, p = a._c.visibility(this._ptr());
    if (!p && this.nodeCount) a._check(1);
    return new Uint8Array(a._core.HEAPU8.buffer, p, this.nodeCount);
  }

  /**
   * The file's skins: [{ mesh: Node, first, count }], each node with a skin and a mesh in node
   * index order; joint j of a skin is matrix first + j of skinMatrices().
   */
  get skins() {
    if (!this._skins) {
      const a = this._a, n = a._c.skins(this._ptr()), s = a._scratch >> 2;
      if (n < 0) a._check(1);
      this._skins = [];
      for (let k = 0; k < n; k++) {
        a._check(a._c.skin(this._p, k, a._scratch));
        this._skins.push({ mesh: this.node(a._i32[s]), first: a._i32[s + 1], count: a._i32[s + 2] });
      }
    }
    return this._skins;
  }

  /**
   * Every skin's joint matrices J = W_mesh^-1 * W_joint * IBM (glTF's, 16 floats column-major
   * each), skin after skin, for the current pose: a view as worldMatrices().
   */
  skinMatrices() {
    const a = this._a, skins = this.skins, last = skins[skins.length - 1], p = a._c.skin_matrices(this._ptr());
    if (!p) a._check(1);
    return new Float32Array(a._core.HEAPF32.buffer, p, last ? 16 * (last.first + last.count) : 0);
  }

  /** Frees the scene, its clips and players; the scene and its nodes cannot be used after. */
  dispose() {
    if (!this._p) return;
    for (const p of this._players) p.dispose();
    for (const c of this._clips || []) this._a._c.clip_dispose(c._p);
    this._a._c.dispose(this._p);
    this._p = 0;
    this._nodes = [];
  }
}

/** A node, by its index in the scene. */
class Node {
  constructor(scene, index) {
    this.scene = scene;
    this.index = index;
  }

  get name() {
    const a = this.scene._a, p = a._c.node_name(this.scene._ptr(), this.index);
    return p ? a._core.UTF8ToString(p) : null;
  }

  /** The parent Node, or null for a root. */
  get parent() {
    const i = this.scene._a._c.node_parent(this.scene._ptr(), this.index);
    if (i === -2) this.scene._a._check(1);
    return i >= 0 ? this.scene.node(i) : null;
  }

  /** The children, in order. */
  get children() {
    const a = this.scene._a;
    return a._indices((out, cap) => a._c.node_children(this.scene._ptr(), this.index, out, cap), this.scene)
      .map((i) => this.scene.node(i));
  }

  setTranslation(x, y, z) { const a = this.scene._a; a._check(a._c.set_translation(this.scene._ptr(), this.index, x, y, z)); }
  setRotation(x, y, z, w) { const a = this.scene._a; a._check(a._c.set_rotation(this.scene._ptr(), this.index, x, y, z, w)); }
  setScale(x, y, z) { const a = this.scene._a; a._check(a._c.set_scale(this.scene._ptr(), this.index, x, y, z)); }

  /** Moves the node under parent (a Node, or null for a root), after its siblings; keepWorld
      keeps its world matrix (its local changes), otherwise its local is kept. */
  setParent(parent, { keepWorld = false } = {}) {
    const a = this.scene._a;
    a._check(a._c.set_parent(this.scene._ptr(), this.index, parent ? parent.index : -1, keepWorld ? 1 : 0));
    this.scene.structureVersion++;
  }

  /** Shows or hides the node (a hidden node hides its subtree). */
  setVisible(visible) {
    const a = this.scene._a;
    a._check(a._c.set_visible(this.scene._ptr(), this.index, visible ? 1 : 0));
    this.scene.structureVersion++;
  }

  /** The world matrix (Float32Array of 16, column-major), current without an update. */
  get worldMatrix() {
    const a = this.scene._a;
    a._check(a._c.world_matrix(this.scene._ptr(), this.index, a._scratch));
    return a._f32.slice(a._scratch >> 2, (a._scratch >> 2) + 16);
  }

  _trs(fn) {
    const a = this.scene._a, s = a._scratch >> 2;
    a._check(fn(this.scene._ptr(), this.index, a._scratch));
    const f = a._f32;
    return {
      translation: Array.from(f.subarray(s, s + 3)),
      rotation: Array.from(f.subarray(s + 3, s + 7)),
      scale: Array.from(f.subarray(s + 7, s + 10)),
      exact: f[s + 10] !== 0,
    };
  }

  /** The local transform { translation, rotation (x, y, z, w), scale }. */
  get local() { const t = this._trs(this.scene._a._c.local_trs); delete t.exact; return t; }

  /** The world transform as TRS; exact is false when a shear makes it approximate. */
  get world() { return this._trs(this.scene._a._c.world_trs); }

  /** The glTF mesh index, or -1. */
  get mesh() { return this.scene._a._c.node_mesh(this.scene._ptr(), this.index); }

  _box(world) {
    const a = this.scene._a, s = a._scratch >> 2;
    if (!a._c.bounds(this.scene._ptr(), this.index, world ? 1 : 0, a._scratch)) return null;
    return { min: Array.from(a._f32.subarray(s, s + 3)), max: Array.from(a._f32.subarray(s + 3, s + 6)) };
  }

  /** The node's own box { min, max } in its frame (its mesh's), or null. */
  get localBounds() { return this._box(false); }
  /** That box in the world, axis-aligned, or null. */
  get worldBounds() { return this._box(true); }
}

/** An animation of the file. */
class Clip {
  constructor(scene, index, name, ptr) {
    this.index = index;
    this.name = name;
    this._p = ptr;
    this.duration = scene._a._c.clip_duration(ptr);
  }
}

/** Plays a clip on a scene's nodes. */
class Player {
  constructor(scene, clip, ptr) {
    this.scene = scene;
    this.clip = clip;
    this._p = ptr;
  }

  _ptr() {
    if (!this._p) throw new ArborError('the player was disposed', 1);
    return this._p;
  }

  /** Poses the nodes at time (seconds), looping (default) or holding the clip's ends. */
  apply(time, { loop = true } = {}) {
    const a = this.scene._a;
    a._check(a._c.player_apply(this._ptr(), time, loop ? 1 : 0));
  }

  dispose() {
    if (!this._p) return;
    this.scene._a._c.player_dispose(this._p);
    this._p = 0;
    this.scene._players.delete(this);
  }
}

/** Instantiates the WebAssembly module (arbor_core.wasm beside this file). */
export async function createArbor(options = {}) {
  return new Arbor(await createArborCore(options));
}

export { ArborError };
