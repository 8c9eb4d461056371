// SPDX-License-Identifier: MIT
// Types of arbor.mjs: arbor's scene graph compiled to WebAssembly.

/** Thrown by every call that fails; message is arbor's ("arbor_gltf_load_memory: /nodes/7/children/1: ..."). */
export class ArborError extends Error {
  readonly code: number;
}

export interface TRS {
  translation: [number, number, number] | number[];
  /** (x, y, z, w) */
  rotation: [number, number, number, number] | number[];
  scale: [number, number, number] | number[];
}

export interface Box {
  min: number[];
  max: number[];
}

export interface CullResult {
  /** Indices of the nodes whose world box the frustum sees (depth-first order). */
  nodes: Int32Array;
  /** Box-against-frustum tests the hierarchical cull made. */
  tests: number;
  /** Time the cull took, in milliseconds (performance.now's resolution). */
  ms: number;
}

export interface LoadOptions {
  /** For a .gltf: its external files (buffers, images) by the relative URI the file gives. */
  resources?: Record<string, Uint8Array> | Map<string, Uint8Array>;
}

export interface NodeDesc {
  name?: string | null;
  parent?: Node | null;
  translation?: ArrayLike<number>;
  /** (x, y, z, w), normalised; default identity */
  rotation?: ArrayLike<number>;
  scale?: ArrayLike<number>;
}

export interface Arbor {
  /** Loads a .gltf or .glb (the bytes of the file). */
  loadGltf(bytes: Uint8Array, options?: LoadOptions): Scene;
  /** An empty scene to build with addNode. */
  createScene(): Scene;
}

export interface Scene {
  /** The number of nodes: the file's, in file order (or those added, in order). */
  readonly nodeCount: number;
  /** Node i by the file's node index; throws when out of range. */
  node(i: number): Node;
  /** The node at a path of names ("/base/joint/arm"), or null. */
  find(path: string): Node | null;
  /** The roots, in order. */
  readonly roots: Node[];
  addNode(desc?: NodeDesc): Node;
  /** Brings every world matrix up to date in one batch. Reads are current without it. */
  update(): void;
  /**
   * Every node's world matrix, 16 floats a node (column-major), in node index order, after an
   * update. A view into the module's memory, not a copy: valid until the next write to this
   * scene or any other call into the module (which may move or overwrite it). slice() it to keep it.
   */
  worldMatrices(): Float32Array;
  /** Bulk writes (one call for many nodes): nodes first, first + 1, ... take 4 (rotations,
      x y z w) or 3 values each. */
  setRotations(values: Float32Array | ArrayLike<number>, first?: number): void;
  setTranslations(values: Float32Array | ArrayLike<number>, first?: number): void;
  setScales(values: Float32Array | ArrayLike<number>, first?: number): void;
  /** Hierarchical culling against the frustum of a view-projection matrix (column-major, OpenGL
      clip space). */
  cull(viewProjection: ArrayLike<number>): CullResult;
  /** The view-projection of the file's camera at node, for an aspect ratio (width / height). */
  cameraViewProjection(node: Node, aspect: number): Float32Array;
  /** The file's animations. */
  readonly clips: Clip[];
  /** A player of a clip (by Clip, index or name) on this scene's nodes from index first on (0:
      the file's nodes; a copy's first node, see addCopies). A Clip of another scene is allowed:
      that scene must outlive the player. */
  player(clip: Clip | number | string, first?: number): Player;
  /** Copies of every node of another scene (a loaded file), for crowds: copy k is source's roots
      with their subtrees under parents[k] (null: as roots); node i of copy k gets index
      base + k * source.nodeCount + i, base (returned) being this scene's node count before the
      call. The source's skins are copied onto each copy. Moves the arrays of worldMatrices()
      and skinMatrices() (layout changes). */
  addCopies(source: Scene, parents: ArrayLike<Node | null>): number;
  /** One frame in one call: players (one, an array, or null) pose their nodes at time seconds
      (one number, or a time per player), looping unless loop is false; every world matrix is
      brought up to date and, once `skins` was read, every joint matrix (skinMatrices). Returns
      worldMatrices() (a view, as there). Refused as a whole when any player would be. */
  frame(players: Player | Player[] | null, time?: number | ArrayLike<number>, loop?: boolean): Float32Array;
  /** Every node's effective visibility (1: it and its ancestors shown), a view as worldMatrices. */
  visibility(): Uint8Array;
  /** The file's skins, each node with a skin and a mesh in node index order: joint j of a skin
      is matrix first + j of skinMatrices(). */
  readonly skins: { mesh: Node; first: number; count: number }[];
  /** Every skin's joint matrices J = W_mesh^-1 * W_joint * IBM (16 floats each, column-major),
      skin after skin, for the current pose: a view as worldMatrices. */
  skinMatrices(): Float32Array;
  /** Counts reparents and visibility changes made through this module (ArborThree reads it). */
  readonly structureVersion: number;
  /** Counts the moves of the arrays that worldMatrices() and skinMatrices() view (addCopies);
      a growth of the module's memory moves them too (their buffer changes). */
  readonly layout: number;
  /** Frees the scene, its clips and players. */
  dispose(): void;
}

export interface Node {
  readonly scene: Scene;
  /** The file's node index. */
  readonly index: number;
  readonly name: string | null;
  readonly parent: Node | null;
  readonly children: Node[];
  setTranslation(x: number, y: number, z: number): void;
  setRotation(x: number, y: number, z: number, w: number): void;
  setScale(x: number, y: number, z: number): void;
  /** Moves the node under parent (null: a root), after its siblings; keepWorld keeps its world
      matrix (its local changes), otherwise its local is kept. */
  setParent(parent: Node | null, options?: { keepWorld?: boolean }): void;
  /** Shows or hides the node (a hidden node hides its subtree). */
  setVisible(visible: boolean): void;
  /** A copy of the world matrix (16 floats, column-major), current without an update. */
  readonly worldMatrix: Float32Array;
  /** The local transform. */
  readonly local: TRS;
  /** The world transform; exact is false when a shear makes it approximate. */
  readonly world: TRS & { exact: boolean };
  /** The glTF mesh index, or -1. */
  readonly mesh: number;
  /** The node's box in its own frame, or null. */
  readonly localBounds: Box | null;
  /** The box in the world (axis-aligned), or null. */
  readonly worldBounds: Box | null;
}

export interface Clip {
  readonly index: number;
  readonly name: string;
  /** Seconds. */
  readonly duration: number;
}

export interface Player {
  readonly scene: Scene;
  readonly clip: Clip;
  /** Poses the nodes at time seconds, looping (default) or holding the ends; writes through
      the bulk path. */
  apply(time: number, options?: { loop?: boolean }): void;
  dispose(): void;
}

/** Instantiates the module (fetches arbor_core.wasm beside arbor.mjs). */
export function createArbor(options?: object): Promise<Arbor>;
