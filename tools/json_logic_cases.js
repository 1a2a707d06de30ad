#!/usr/bin/env node
// Records what json-logic-js (the evaluator Strapi 5 runs conditional fields with) answers
// for a set of rules on a set of data, for runtime/src/write/condition.rs's test.
//
// usage: node tools/json_logic_cases.js [ORACLE_DIR] > tests/fixtures/json_logic/cases.json
//
// ORACLE_DIR is an installed copy of the oracle (default /work/oracle); its node_modules holds
// json-logic-js 2.0.5, the version @strapi/core 5.54 depends on. Each case is
// {"rule", "data", "result"}; `undefined` is written {"$undefined": true}, a number JSON cannot
// hold {"$number": "NaN"}; {"throws": true} where json-logic-js throws. The random part is
// seeded, so the same version writes the same file.
'use strict';

const path = require('path');
const oracle = process.argv[2] || '/work/oracle';
const jsonLogic = require(path.join(oracle, 'node_modules', 'json-logic-js'));
console.log = () => {}; // `log` prints its argument: keep stdout for the cases

const DATA = [
  { kind: 'digital', featured: true, priority: 5, title: 'memo', tags: ['a', 'b'], none: null,
    empty: '', zero: 0, nested: { level: { deep: 'x' } }, list: [], objs: [{ n: 1 }, { n: 2 }] },
  { kind: 'physical', featured: false, priority: '5', title: '', tags: [], price: '12.5e1',
    hex: '0x1F', spaced: ' 7 ', flag: 'false', num: -0.5, big: 1e21, tiny: 1e-7 },
  { priority: ' 5 ', featured: 'yes', kind: ['digital'], count: '', arr: [1, [2, 3]], text: 'héllo😀' },
  {},
];

const HAND = [
  { '==': [{ var: 'kind' }, 'digital'] },
  { '!=': [{ var: 'kind' }, 'digital'] },
  { '==': [{ var: 'featured' }, true] },
  { '==': [{ var: 'priority' }, 5] },
  { '==': [{ var: 'priority' }, '5'] },
  { '===': [{ var: 'priority' }, 5] },
  { '!==': [{ var: 'priority' }, '5'] },
  { '==': [{ var: 'none' }, null] },
  { '==': [{ var: 'missing' }, null] },
  { '==': [{ var: 'missing' }, false] },
  { '==': [{ var: 'zero' }, false] },
  { '==': [{ var: 'empty' }, 0] },
  { '==': [{ var: 'tags' }, 'a,b'] },
  { '==': [{ var: 'kind' }, ['digital']] },
  { '==': [[1], 1] },
  { '==': [[], false] },
  { '==': [[], ''] },
  { '==': [{}, '[object Object]'] },
  { '==': [{ var: 'nested' }, { var: 'nested' }] },
  { '===': [{ var: 'tags' }, { var: 'tags' }] },
  { '==': [[1], [1]] },
  { '==': [{ var: 'hex' }, 31] },
  { '==': [{ var: 'spaced' }, 7] },
  { '==': [{ var: 'flag' }, false] },
  { '==': ['1', true] },
  { '==': ['true', true] },
  { '==': [null, 0] },
  { '==': [{ var: 'big' }, '1e21'] },
  { '>': [{ var: 'priority' }, 3] },
  { '>=': [{ var: 'priority' }, 5] },
  { '<': [{ var: 'priority' }, 10] },
  { '<': ['a', 'b'] },
  { '<': ['B', 'a'] },
  { '<': ['10', '9'] },
  { '<': ['10', 9] },
  { '<': [null, 1] },
  { '<': [{ var: 'missing' }, 1] },
  { '<=': [{ var: 'missing' }, 1] },
  { '>=': ['abc', 1] },
  { '<': [1, { var: 'priority' }, 10] },
  { '<=': [1, 1, 2] },
  { '<=': [1, 3, 2] },
  { '<': [[2], 3] },
  { '<': ['\ud83d\ude00', '\uffff'] },
  { '!!': { var: 'tags' } },
  { '!!': [{ var: 'tags' }] },
  { '!': { var: 'featured' } },
  { '!': [[]] },
  { '!!': ['0'] },
  { '!!': [{ var: 'num' }] },
  { and: [{ var: 'featured' }, { '==': [{ var: 'kind' }, 'digital'] }] },
  { and: [] },
  { or: [] },
  { or: [0, '', { var: 'tags' }] },
  { and: [1, 'x', [], 2] },
  { or: [{ var: 'missing' }, { var: 'title' }] },
  { if: [{ var: 'featured' }, 'yes', 'no'] },
  { if: [false, 1, { var: 'kind' }, 2, 3] },
  { if: [] },
  { if: ['only'] },
  { if: [false, 1] },
  { '?:': [true, 'a', 'b'] },
  { in: [{ var: 'kind' }, ['digital', 'other']] },
  { in: ['dig', { var: 'kind' }] },
  { in: ['a', { var: 'tags' }] },
  { in: [1, ['1']] },
  { in: ['x', null] },
  { in: ['x', { var: 'nested' }] },
  { in: ['undefined', { cat: [{ var: 'missing' }, 'undefined'] }] },
  { cat: ['a', 1, null, true, [1, 2], { var: 'missing' }] },
  { cat: [1.5, 1e21, 1e-7, -0] },
  { substr: ['jsonlogic', 4] },
  { substr: ['jsonlogic', -5] },
  { substr: ['jsonlogic', 1, 3] },
  { substr: ['jsonlogic', 4, -2] },
  { substr: ['jsonlogic', 4, '-2'] },
  { substr: [{ var: 'text' }, 5, 1] },
  { '+': [1, '2', ' 3.5x'] },
  { '+': [] },
  { '+': ['a'] },
  { '+': [{ var: 'price' }] },
  { '*': [2, '3'] },
  { '*': ['7'] },
  { '*': [[2], '4e1'] },
  { '-': [5] },
  { '-': ['5', 2] },
  { '-': [{ var: 'missing' }, 1] },
  { '/': [1, 0] },
  { '/': [-1, 0] },
  { '/': [0, 0] },
  { '%': [7, 3] },
  { '%': [-7, 3] },
  { min: [3, '1', 2] },
  { max: [] },
  { min: [] },
  { max: [1, 'x'] },
  { merge: [1, [2, [3]], { var: 'tags' }] },
  { var: 'nested.level.deep' },
  { var: 'nested.level.none' },
  { var: ['missing', 'fallback'] },
  { var: ['none', 'fallback'] },
  { var: 'tags.1' },
  { var: 'tags.length' },
  { var: 'title.length' },
  { var: 'title.0' },
  { var: 'tags.01' },
  { var: '' },
  { var: [] },
  { var: null },
  { var: 1 },
  { var: { cat: ['ki', 'nd'] } },
  { missing: ['kind', 'missing', 'empty', 'none', 'zero'] },
  { missing: [['kind', 'nope']] },
  { missing_some: [1, ['kind', 'nope']] },
  { missing_some: [2, ['kind', 'nope', 'gone']] },
  { missing_some: [1, null] },
  { missing_some: [1, 'kind'] },
  { filter: [{ var: 'objs' }, { '>': [{ var: 'n' }, 1] }] },
  { map: [{ var: 'objs' }, { var: 'n' }] },
  { map: [{ var: 'missing' }, 1] },
  { reduce: [{ var: 'objs' }, { '+': [{ var: 'current.n' }, { var: 'accumulator' }] }, 0] },
  { reduce: [[1, 2, 3], { '*': [{ var: 'current' }, { var: 'accumulator' }] }, 1] },
  { reduce: [{ var: 'missing' }, 1, 'init'] },
  { all: [[1, 2], { '>': [{ var: '' }, 0] }] },
  { all: [[], true] },
  { none: [{ var: 'tags' }, { '==': [{ var: '' }, 'z'] }] },
  { none: [7, true] },
  { some: [{ var: 'tags' }, { '==': [{ var: '' }, 'b'] }] },
  { log: 'x' },
  { a: 1, b: 2 },
  {},
  [1, { var: 'kind' }],
  'text',
  0,
  true,
  null,
];

// A small seeded generator (mulberry32), so that the file is the same on every run.
let seed = 20261130;
function random() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const LEAVES = [0, 1, -1, 2.5, '5', ' 5 ', '', 'a', 'digital', 'true', 'false', '0x10', true, false,
  null, [], [1], ['a', 'b'], '1e3', 'Infinity', '-0'];
const VARS = ['kind', 'featured', 'priority', 'title', 'tags', 'none', 'empty', 'zero', 'missing',
  'price', 'hex', 'spaced', 'flag', 'num', 'count', 'arr', 'nested.level.deep', 'tags.0'];
const OPS = ['==', '===', '!=', '!==', '>', '>=', '<', '<=', '!!', '!', 'and', 'or', 'if', 'in',
  'cat', '+', '-', '*', '/', '%', 'min', 'max', 'merge', 'substr', 'missing'];

function rule(depth) {
  const r = random();
  if (depth > 2 || r < 0.25) return pick(LEAVES);
  if (r < 0.5) return { var: pick(VARS) };
  const op = pick(OPS);
  const n = op === '!!' || op === '!' ? 1 : 1 + Math.floor(random() * 3);
  const args = [];
  for (let i = 0; i < n; i += 1) args.push(rule(depth + 1));
  return { [op]: args };
}

// A lone surrogate (a `substr` through an emoji) as U+FFFD, as Rust's text holds it.
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function encode(v) {
  if (v === undefined) return { $undefined: true };
  if (typeof v === 'string') return v.replace(LONE, '\ufffd');
  if (typeof v === 'number' && !Number.isFinite(v)) return { $number: String(v) };
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = encode(v[k]);
    return o;
  }
  return v;
}

const cases = [];
function record(r, data) {
  try {
    const result = jsonLogic.apply(r, data);
    cases.push({ rule: r, data, result: encode(result) });
  } catch (e) {
    cases.push({ rule: r, data, throws: true });
  }
}
for (const r of HAND) for (const d of DATA) record(r, d);
for (let i = 0; i < 600; i += 1) record(rule(0), pick(DATA));
process.stdout.write(JSON.stringify({ version: require(path.join(oracle, 'node_modules', 'json-logic-js', 'package.json')).version, cases }, null, 0) + '\n');
