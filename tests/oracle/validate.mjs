// SPDX-License-Identifier: MIT
// Validates glTF files with the Khronos glTF validator (npm gltf-validator, pinned in
// package.json) and exits non-zero when any has an error.
//
//   node tests/oracle/validate.mjs [--against SOURCE] FILE...
//
// --against SOURCE: the FILEs were written by arbor from SOURCE; an error that SOURCE has too
// (same code, at most as many times) is the source's data, not arbor's, and is reported as
// inherited without failing (RiggedFigure's weights, for instance).
// The validator package is looked up from $ARBOR_ORACLE_PREFIX (default: build/oracle of the
// repository), where tests/oracle/run.sh installs it.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const prefix = process.env.ARBOR_ORACLE_PREFIX || path.resolve(here, '../../build/oracle');
const validator = createRequire(path.join(prefix, 'package.json'))('gltf-validator');

const SEVERITY = ['error', 'warning', 'info', 'hint'];

async function validate(file) {
    const data = new Uint8Array(await readFile(file));
    return validator.validateBytes(data, {
        uri: path.basename(file),
        maxIssues: 0,
        externalResourceFunction: (uri) =>
            readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
}

// code -> how many errors of that code
function errorCounts(report) {
    const counts = new Map();
    for (const m of report.issues.messages) if (m.severity === 0) counts.set(m.code, (counts.get(m.code) || 0) + 1);
    return counts;
}

const args = process.argv.slice(2);
let against = null;
if (args[0] === '--against') {
    against = args[1];
    args.splice(0, 2);
}
if (args.length === 0) {
    console.error('usage: node validate.mjs [--against SOURCE] FILE...');
    process.exit(2);
}

let failed = 0;
const inherited = against ? errorCounts(await validate(against)) : new Map();
for (const file of args) {
    let report;
    try {
        report = await validate(file);
    } catch (e) {
        console.log(`${file}: the validator could not read it: ${e}`);
        failed++;
        continue;
    }
    const { numErrors, numWarnings, numInfos, numHints } = report.issues;
    const ours = errorCounts(report);
    let own = 0;
    for (const [code, n] of ours) own += Math.max(0, n - (inherited.get(code) || 0));
    const note = numErrors > own ? ` (${numErrors - own} inherited from ${path.basename(against)})` : '';
    console.log(`${file}: ${numErrors} errors${note}, ${numWarnings} warnings, ${numInfos} infos, ${numHints} hints`);
    for (const m of report.issues.messages) {
        if (m.severity > 1) continue;
        console.log(`  ${SEVERITY[m.severity]} ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
    if (own > 0) failed++;
}
process.exit(failed ? 1 : 0);
