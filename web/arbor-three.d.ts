// SPDX-License-Identifier: MIT
// Types of arbor-three.mjs: three.js draws, arbor moves it. three.js is a peer dependency: the
// caller passes its THREE namespace and GLTFLoader class (this module imports neither).
import type { Arbor, Scene, Node, Clip } from './arbor.js';

export interface ArborThreeOptions {
  /** The caller's three.js namespace (`import * as THREE from 'three'`). */
  THREE: any;
  /** three.js's GLTFLoader class (`three/addons/loaders/GLTFLoader.js`). */
  GLTFLoader?: any;
  /** A configured GLTFLoader instance to use instead (e.g. with a DRACOLoader). */
  loader?: any;
}

export interface FromBytesOptions extends ArborThreeOptions {
  /** A .gltf's external files by the relative URI the file gives. */
  resources?: Record<string, Uint8Array>;
  /** Base URL for external files not in resources. */
  path?: string;
}

export class ArborThree {
  /** Fetches a .glb or .gltf (with its external files) and reads it with arbor and three.js.
      Rejects with arbor's message when arbor refuses the file. */
  static load(arbor: Arbor, url: string | URL, options: ArborThreeOptions): Promise<ArborThree>;
  /** The same from the file's bytes. */
  static fromBytes(arbor: Arbor, bytes: Uint8Array, options: FromBytesOptions): Promise<ArborThree>;

  /** The file's default scene as three.js objects (a THREE.Group): add it to your scene. Its own
      transform places the file (multiplied in by the module); below it three.js's matrix updates
      are off: each object's matrixWorld.elements is a Float32Array view of arbor's matrix in the
      module's memory (made again by the update after the memory grew; read it, do not keep it
      across frames or write it), each skeleton's boneMatrices a view of its joint matrices. A
      crowd's object holds the copies (object.children[k]). */
  readonly object: any;
  /** The arbor Scene: the file's nodes in file order. Edits made through it (moved, reparented,
      hidden) show at the next update(). */
  readonly scene: Scene;
  /** GLTFLoader's result (animations, cameras, parser). */
  readonly gltf: any;
  /** The clip play() started, or undefined. */
  readonly clip?: Clip;
  /** The animation time in seconds (set it, then update(0), or use seek); a crowd: its first
      copy's, and setting it sets every copy's. */
  time: number;
  /** Each copy's animation time in seconds (one entry for a bridge that is no crowd). */
  readonly times: Float64Array;
  /** How many copies of the file this bridge drives: 1, or the crowd's count. */
  readonly count: number;
  /** Whether update(dt) advances time. */
  playing: boolean;
  /** Whether the clip loops (default) or holds its ends. */
  loop: boolean;

  /** Plays the animation of that name (or index) from 0 (a crowd: on every copy, each from its
      time 0); returns its Clip. Throws for an unknown name. */
  play(name: string | number, options?: { loop?: boolean }): Clip;
  pause(): void;
  /** Poses at time t seconds and writes the matrices (update(0)). */
  seek(t: number): void;
  /** Advances time by dt seconds when playing; arbor poses, updates and computes the joint
      matrices in one call; the world matrices go into the three.js objects (matrixWorld) and the
      joint matrices into their skeletons (boneMatrices). Call once a frame, before render. */
  update(dt?: number): void;
  /** The three.js object of a node (a Node or its index), or null. */
  objectOf(node: Node | number): any | null;
  /** The arbor Node of a three.js object, or null. */
  nodeOf(object: any): Node | null;
  /** Another copy: its own arbor scene from the same bytes and its own objects sharing this one's
      geometries, materials and textures. */
  clone(): ArborThree;
  /** count copies of the file in one arbor scene (copy k's node i: node k * nodeCount + i),
      sampled, updated, skinned and placed in one call into the module at each update(): a
      bridge whose object holds the copies' objects, sharing this one's geometries, materials
      and textures (this bridge must outlive it). */
  crowd(count: number): ArborThree;
  /** A crowd's copy k placed by a matrix (a THREE.Matrix4 or 16 numbers, column-major; a bridge
      that is no crowd throws: its object's transform places it), as
      InstancedMesh.setMatrixAt places an instance: shown at the next update(). The placement
      stays outside the arbor scene, whose copies keep the file's frame (and float precision). */
  setMatrixAt(k: number, matrix: any): void;
  /** Copy k's matrix into target (a THREE.Matrix4); returns target. */
  getMatrixAt(k: number, target: any): any;
  /** Copy k's node i of the file (k is 0 for a bridge that is no crowd). */
  copyNode(k: number, i: number): Node;
  /** Frees the arbor scene, removes the object from its parent and disposes its geometries,
      materials and textures (a clone's or crowd's resources are its original's: not disposed;
      its skeletons' bone textures are). */
  dispose(): void;
}
