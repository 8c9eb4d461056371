// SPDX-License-Identifier: MIT
// glTF loading speed of @gltf-transform/core (npm), the peer of bench/gltf_load/gltf_load.c:
// NodeIO.read of the same file, median of RUNS reads, one JSON line like the C program's.
//   node gltf_transform.mjs FILE [RUNS]
import { NodeIO } from '@gltf-transform/core';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [path, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const version = JSON.parse(readFileSync(new URL('./node_modules/@gltf-transform/core/package.json', import.meta.url))).version;
const io = new NodeIO();
const times = [];
let nodes = 0;
for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const doc = await io.read(path);
    times.push(performance.now() - t0);
    nodes = doc.getRoot().listNodes().length;
}
times.sort((a, b) => a - b);
const median = times.length % 2 ? times[(times.length - 1) / 2] : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
console.log(JSON.stringify({ peer: `@gltf-transform/core ${version}`, file: path, nodes, load_ms: +median.toFixed(3), runs }));
