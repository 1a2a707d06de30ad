#!/usr/bin/env node
// Generates ../fixtures/qs_table.json: query strings and what npm qs (the version Strapi 5 uses)
// makes of them with Strapi's options. The Rust parser in src/query/qs.rs must agree on every
// case (tests/qs_differential.rs).
//
//   cd runtime/tests/qs && npm install && node gen_table.js
//
// The output is deterministic: a seeded PRNG drives the random part, and the hand-picked cases
// come first. Each entry is {"input": <string>, "output": <JSON value of qs.parse(input)>}.
'use strict';

const fs = require('fs');
const path = require('path');
const qs = require('qs');

const OPTIONS = { depth: 20, arrayLimit: 100, strictNullHandling: true };
const OUT = path.join(__dirname, '..', 'fixtures', 'qs_table.json');
const RANDOM_CASES = 3000;
const MAX_FIXTURE_BYTES = 1.5 * 1024 * 1024;

// mulberry32: small, seeded, deterministic.
function prng(seed) {
    let a = seed >>> 0;
    return function () {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const rand = prng(0x5157a7a);
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];
const chance = (p) => rand() < p;

// ------------------------------------------------------------------------------------------
// Hand-picked edge cases.

const rep = (s, n, sep) => Array.from({ length: n }, (_, i) => s.replace(/\$i/g, String(i))).join(sep === undefined ? '&' : sep);
const deep = (n) => 'a' + Array.from({ length: n }, (_, i) => '[' + String.fromCharCode(98 + (i % 24)) + ']').join('');

const HAND = [
    '', 'a', 'a=', '=', '==', '=x', '&', '&&', '&&&a=1&&', 'a=1', 'a=1&b=2', 'a=1&a=2', 'a=1&a=2&a=3',
    'a&a', 'a=&a=', 'a&a=', 'a=&a', 'a=1&a', 'a&a=1',
    'a[]=1', 'a[]=1&a[]=2', 'a[]=', 'a[]', 'a[]&a[]', 'a[]=1&a=2', 'a=1&a[]=2', 'a[]=1&a[0]=2',
    'a[0]=x', 'a[1]=x', 'a[5]=x', 'a[1]=x&a[5]=y', 'a[5]=y&a[1]=x', 'a[0]=x&a[0]=y', 'a[0]=x&a[1]=y&a[0]=z',
    'a[99]=x', 'a[100]=x', 'a[101]=x', 'a[99]=x&a[100]=y', 'a[100]=x&a[99]=y', 'a[150]=x&a=y', 'a=y&a[150]=x',
    'a[100]=x&a[]=y', 'a[]=y&a[100]=x', 'a[100]=x&a[]=y&a[]=z', 'a[100]=x&a[b]=y', 'a[100][b]=x&a[100][c]=y',
    'a[0]=x&a[b]=y', 'a[b]=y&a[0]=x', 'a[x]=1&a[0]=2&a[y]=3&a[1]=4',
    'a=1&a[b]=2', 'a[b]=2&a=1', 'a[b]=1&a=', 'a[b]=1&a', 'a&a[b]=1', 'a=&a[b]=1', 'a[b]=1&a=2&a[c]=3',
    'a[b]=1&a[b]x=2', 'a[b]=1&a[b]]=2', 'a[b]c=1', 'a[b]c[d]=1', 'a[b]c[d]e=1', 'a]=1', 'a]b=1', ']=1', '][=1',
    '[a]=1', '[a][b]=1', '[0]=1', '[]=1', '[]=1&[]=2', '[=1', '[[=1', '[[]=1', '[]]=1', '[a=1',
    'a[b', 'a[b=1', 'a[b][c', 'a[b][c=1', 'a[[b]=1', 'a[[b]]=1', 'a[b[c]]=1', 'a[b[c]d]=1', 'a[b]][c]=1',
    'a[][b]=1', 'a[][b]=1&a[][c]=2', 'a[][0]=x', 'a[][5]=x', 'a[][][]=x', 'a[0][]=x', 'a[0][0]=x&a[0][1]=y',
    'a[0][b]=1&a[0][c]=2&a[1][b]=3', 'a[0][b]=1&a[1]=2', 'a[0]=1&a[0][b]=2', 'a[0][b]=1&a[0]=2',
    'a+b=c+d', 'a+b[c+d]=e+f', 'a%20b=c%20d', 'a%2Bb=c%2Bd', 'a+%2B+b=1', '%2B=%2B', '+=+', '++=++',
    '%5B%5D=1', 'a%5B%5D=1', 'a%5Bb%5D=1', 'a%5bb%5d=1', 'a%5Bb%5D=1&a[c]=2', 'a[%5B]=1', 'a[b%5D=1',
    'a=%5B%5D', 'a=%5b', 'a%255B%255D=1', 'a=b%5D=c', 'a=b]=c', 'a]=b]=c', 'a[b]=c]=d', 'a==b', 'a=b=c',
    '%=1', 'a=%', 'a=%2', 'a=%zz', 'a=%41%ZZ', 'a=%41', 'a=%C3%A9', 'a=%c3%a9', 'a=%C3', 'a=%C3%A9%C3',
    'a=%E2%82%AC', 'a=%E2%82', 'a=%F0%9F%98%80', 'a=%F0%9F%98', 'a=%FF', 'a=%80', 'a=%C0%80', 'a=%C1%BF',
    'a=%E0%80%80', 'a=%E0%A0%80', 'a=%ED%9F%BF', 'a=%ED%A0%80', 'a=%ED%BF%BF', 'a=%EE%80%80',
    'a=%F4%8F%BF%BF', 'a=%F4%90%80%80', 'a=%F5%80%80%80', 'a=%F8%88%80%80%80', 'a=%EF%BB%BFx', 'a=%00',
    'a=%0A%0D%09%22%5C', 'a=%7F', 'a=%C3%A9%zz', '%C3%A9=1', '%C3=1', 'a[%C3%A9]=1', 'é=ü', 'a=日本',
    '日本[語]=1', 'a=\u2028\u2029', '%E2%80%A8=1', 'a%26b=1', 'a%3Db=1', 'a=1%26b%3D2', 'a%00b=1',
    '__proto__=1', '__proto__[a]=1', 'a[__proto__]=1', 'a[__proto__]=1&a[x]=2', 'a[b][__proto__]=1',
    '[__proto__]=1', 'a[[__proto__]]=1', 'a[__proto__=1', 'constructor=1', 'a[constructor]=1',
    'a[constructor][prototype]=1', 'hasOwnProperty=1', 'a[hasOwnProperty]=1', 'toString=1', 'a[toString]=1',
    'valueOf=1', 'a[valueOf][x]=1', 'isPrototypeOf=1', 'propertyIsEnumerable=1', 'toLocaleString=1',
    '__defineGetter__=1', '__lookupSetter__=1', 'prototype=1', 'a[prototype]=1', 'length=1', 'a[length]=1',
    '__proto__%5Ba%5D=1', '__proto%5F_=1', 'a[__proto__]', 'a[%5F_proto__]=1', 'Constructor=1',
    'a[01]=x', 'a[-1]=x', 'a[-0]=x', 'a[1e3]=x', 'a[ 1]=x', 'a[1 ]=x', 'a[+1]=x', 'a[0x1]=x', 'a[1.0]=x',
    'a[4294967294]=x', 'a[4294967295]=x', 'a[4294967296]=x', 'a[9007199254740991]=x', 'a[9007199254740992]=x',
    'a[9007199254740993]=x', 'a[100000000000000000000]=x', 'a[100000000000000000000]=x&a=y',
    'a[100000000000000000000]=x&a[]=y', 'a[123456789012345680000]=x', 'a[123456789012345678901]=x',
    'a[999999999999999999999]=x', 'a[1000000000000000000000]=x', 'a[99999999999999999999]=x&a=y&a=z',
    '4294967294=a&4294967295=b&x=c&1=d', 'x=c&4294967295=b&1=d&4294967294=a', 'x=1&01=2&1=3',
    'b=1&0=2', '5[a]=x&5=y', '5=y&5[a]=x', '0[a]=1&0=2', 'x=1&2=2&1[a]=3&1=4',
    deep(19) + '=x', deep(20) + '=x', deep(21) + '=x', deep(22) + '=x', deep(25) + '=x', deep(40) + '=x',
    deep(21) + '&' + deep(21) + '=y', deep(20) + '[]=x', deep(20) + '[0]=x', deep(20) + '[__proto__]=x',
    deep(20) + '[a', deep(20) + ']x[y]=1', 'a' + '[]'.repeat(25) + '=x', 'a' + '[0]'.repeat(25) + '=x',
    'filters[title][$eq]=hello', 'filters[$or][0][title][$eq]=a&filters[$or][1][title][$eq]=b',
    'filters[a][$in][0]=x', 'filters[a][$in]=x', 'filters[a][$in]=x&filters[a][$in]=y', 'filters[a][$in][]=x',
    'filters[a][$null]', 'filters[a][$null]=', 'filters[a][$null]=true', 'populate=*', 'populate[0]=a&populate[1]=b',
    'populate[author][fields][0]=name&populate[author][populate][avatar]=true', 'fields[]=title&fields[]=body',
    'fields=title,body', 'pagination[page]=1&pagination[pageSize]=10', 'sort[0]=title:asc&sort[1]=id:desc',
    'sort=title:asc', 'filters.title=x', 'filters[title.x]=1', 'locale=fr&status=draft',
    'filters[id][$in]=' + rep('$i', 3, '&filters[id][$in]='),
    rep('filters[id][$in][]=$i', 100), rep('filters[id][$in][]=$i', 101), rep('filters[id][$in][]=$i', 102),
    rep('a=$i', 100), rep('a=$i', 101), rep('a=$i', 103), rep('a[$i]=x', 100), rep('a[$i]=x', 101),
    rep('populate[$i]=f$i', 100), rep('populate[$i]=f$i', 101), rep('a[]=$i', 101) + '&a[b]=c',
    rep('a[]=$i', 101) + '&a=z', 'a=z&' + rep('a[]=$i', 101), rep('a[]=$i', 101) + '&a[]b=z',
    rep('a[]=$i', 99) + '&a[x]=1', rep('a[$i][b]=x', 101), rep('a[]x$i=v$i', 102), rep('a[b]x$i=v$i', 3),
    rep('x[a][q$i]=1&x[a]$i=2', 6), rep('k$i=v', 1001), rep('k$i=v', 1000) + '&late=1', rep('&', 1200) + 'a=1',
    'a=1&' + rep('', 999) + 'b=2', 'a=' + 'x'.repeat(5000), 'k'.repeat(3000) + '=v', '['.repeat(2000) + '=1',
    'a' + '['.repeat(1000) + '=1', 'a' + '[b'.repeat(500) + '=1', 'a' + ']'.repeat(1000) + '=1',
    'a' + '[]'.repeat(1000) + '=1', 'a' + '[x]'.repeat(1000) + '=1', '%'.repeat(100) + '=1',
    '%25%32%35=1', 'a=%2525', '?a=1', '?a=1&?b=2', '#a=1', 'a=1#b', 'a=1;b=2', 'a;b=1', '\\=1', 'a="b"',
];

// Every place where qs checks arrayLimit, just below, at and just above it.
for (const n of [99, 100, 101]) {
    HAND.push(
        rep('a[]=$i', n) + '&a=z',
        'a=z&' + rep('a[]=$i', n),
        'a&' + rep('a[]=$i', n),
        rep('a[]=$i', n) + '&a[]x=z',
        rep('a[]=$i', n) + '&a[]x=z&a[]y=w',
        rep('a[]=$i', n) + '&' + rep('a[]x=$i', n),
        rep('a[$i]=v', n) + '&a=z',
        rep('a[$i]=v', n) + '&a[]=z',
        rep('a[$i][b]=v', n) + '&a[0][c]=z',
        rep('a[]=$i', n) + '&a[b]=z',
        rep('a[][]=$i', n),
        rep('a[][]=$i', n) + '&a[]=z',
        rep('a=$i', n) + '&a[]=z',
        rep('a=$i', n) + '&a[b]=z',
        rep('a[b]=$i', n) + '&a=z',
        '5=z&' + rep('5[]=$i', n),
        rep('a[b][]=$i', n) + '&a[b]=z&a=y',
        rep('x[a][]=$i', n) + '&x[a]p=1&x[a]q=2',
        rep('x[a][$i]=v', n) + '&x[a]p=1&x[a]q=2',
        'x[a]=y&' + rep('x[a][]=$i', n) + '&x[a]p=1',
    );
}
HAND.push(
    'a[100]=x&a=y&a=z', 'a=y&a[100]=x', 'a=y&a=z&a[100]=x', 'a=y&a[100000000000000000000]=x',
    'a=y&a[99999999999999999999]=x', 'a[100]=x&a[b]=y&a=z', 'a[100][b]=1&a[100][c]=2',
    'a[100]=x&a[200]=y&a=z', 'a[200]=x&a[100]=y&a=z', 'a[100]=x&a[0]=y&a=z', 'a[0]=y&a[100]=x&a=z',
    'a[b]=y&a[100]=x&a=z', 'a[100]=x&a[]=y&a[]z=w&a=v', 'a=v&a[100]=x&a[]=y',
    'a[9007199254740992]=x&a=y&a=z', 'a[9007199254740992]=x&a[]y=1&a[]z=2',
    // Primitive merges into overflow objects at a nested path (keys with trailing junk share it).
    'x[a]=y&x[a][100]=v&x[a]z=w', 'x[a]=y&x[a][100]=v&x[a]z=w&x[a]zz=w2', 'x[a][100]=v&x[a]z=w&x[a]zz=w2',
    'x[a]=y&x[a][100000000000000000000]=v&x[a]z=w', 'x[a][100000000000000000000]=v&x[a]z=w&x[a]zz=w2',
    'x[a]=y&x[a][b]=1&x[a]z=w', 'x[a][b]=1&x[a]z=w&x[a]zz=w2', 'x[a]&x[a][b]=1&x[a]z=w',
);

// ------------------------------------------------------------------------------------------
// Random cases.

const NAMES = [
    'a', 'b', 'c', 'x', 'y', 'filters', 'populate', 'fields', 'sort', 'pagination', 'page', 'pageSize',
    'title', 'name', 'locale', 'status', '$eq', '$in', '$or', '$and', '$null', '$notIn', '$ne', '$contains',
    '0', '1', '5', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype',
    'length', '', ' ', 'a b', 'é', '日本', 'a.b', 'a=b', 'a&b', 'a+b', 'x]', '[y',
];
const HUGE = [
    '100000000000000000000', '9007199254740993', '9007199254740992', '4294967295', '4294967294', '01',
    '-1', '1e3', ' 1', '1.5', '00', '123456789012345680000', '1000000000000000000000', '99999999999999999999',
];
const RAW_ESCAPES = [
    '%', '%Z1', '%2', '%C3', '%E2%82', '%FF', '%C0%80', '%ED%A0%80', '%F4%90%80%80', '%80', '%C3%A9',
    '%E2%82%AC', '%F0%9F%98%80', '%20', '%2B', '%26', '%3D', '%5B', '%5b', '%5D', '%5d', '%255B', '%00',
    '%0A', '%22', '%5C', '+', '++', '%E6%97%A5',
];

function randomIndex() {
    const r = rand();
    if (r < 0.45) return String(int(6));
    if (r < 0.8) return String(int(151));
    if (r < 0.92) return String(97 + int(8));
    return pick(HUGE);
}

function randomSegment() {
    const r = rand();
    if (r < 0.4) return '[' + pick(NAMES) + ']';
    if (r < 0.55) return '[]';
    if (r < 0.85) return '[' + randomIndex() + ']';
    if (r < 0.89) return '[' + pick(NAMES) + '[' + pick(NAMES) + ']]';
    if (r < 0.92) return '[' + pick(NAMES);
    if (r < 0.95) return pick(NAMES) + ']';
    if (r < 0.97) return pick(['x', ']', '[[', ']]', '][']);
    return '[' + pick(RAW_ESCAPES) + ']';
}

function strapiKey() {
    const attr = pick(['title', 'name', 'id', 'author', 'tags', 'createdAt']);
    const op = pick(['$eq', '$ne', '$in', '$notIn', '$null', '$contains', '$between', '$lt']);
    switch (int(9)) {
        case 0: return 'filters[$or][' + int(4) + '][' + attr + '][' + op + ']';
        case 1: return 'filters[' + attr + '][' + op + ']' + (chance(0.5) ? '[' + randomIndex() + ']' : '');
        case 2: return 'populate[' + (chance(0.5) ? randomIndex() : attr) + ']';
        case 3: return 'fields[' + (chance(0.5) ? '' : randomIndex()) + ']';
        case 4: return 'pagination[' + pick(['page', 'pageSize', 'start', 'limit', 'withCount']) + ']';
        case 5: return 'sort[' + randomIndex() + ']';
        case 6: return 'populate[' + attr + '][populate][' + pick(['*', attr, '0']) + '][fields][' + int(3) + ']';
        case 7: return 'filters[' + attr + '][$in][]';
        default: return pick(['sort', 'populate', 'fields', 'locale', 'status', 'filters']);
    }
}

function randomKey() {
    if (chance(0.3)) return strapiKey();
    let key = chance(0.9) ? pick(NAMES) : '';
    const depth = chance(0.1) ? 18 + int(8) : int(5);
    for (let i = 0; i < depth; i++) key += randomSegment();
    return key;
}

function randomValue() {
    const r = rand();
    if (r < 0.15) return '';
    if (r < 0.5) return pick(['1', 'x', 'true', 'hello', 'title:asc', '*', 'a,b', '2024-01-01', '']);
    let v = '';
    const n = 1 + int(4);
    for (let i = 0; i < n; i++) {
        v += chance(0.6) ? pick(['a', 'b', 'é', ' ', '=', ']=', '[', ']', '?', '/', 'x']) : pick(RAW_ESCAPES);
    }
    return v;
}

// Percent-encodes some characters, writes spaces as '+' and sprinkles raw escapes.
function mangle(s) {
    let out = '';
    for (const ch of s) {
        const r = rand();
        if (ch === ' ' && r < 0.6) out += '+';
        else if ((ch === '[' || ch === ']') && r < 0.15) out += pick(ch === '[' ? ['%5B', '%5b'] : ['%5D', '%5d']);
        else if (r < 0.08) out += encodeURIComponent(ch);
        else out += ch;
    }
    if (chance(0.08)) {
        const at = int(out.length + 1);
        out = out.slice(0, at) + pick(RAW_ESCAPES) + out.slice(at);
    }
    return out;
}

function randomPair(previousKeys) {
    let key;
    if (previousKeys.length > 0 && chance(0.35)) {
        key = pick(previousKeys);
        // The same path spelled differently: trailing junk or an encoded bracket.
        if (chance(0.2)) key += pick(['x', ']', '%5D', 'junk']);
    } else {
        key = randomKey();
        if (chance(0.5)) key = mangle(key);
    }
    previousKeys.push(key);
    const r = rand();
    if (r < 0.12) return key;
    let value = randomValue();
    if (chance(0.4)) value = mangle(value);
    return key + '=' + value;
}

function randomInput() {
    const previousKeys = [];
    const n = chance(0.05) ? 20 + int(60) : 1 + int(8);
    const parts = [];
    for (let i = 0; i < n; i++) {
        if (chance(0.04)) parts.push('');
        parts.push(randomPair(previousKeys));
    }
    return parts.join('&');
}

// ------------------------------------------------------------------------------------------

const seen = new Set();
const cases = [];
function add(input) {
    if (seen.has(input)) return;
    seen.add(input);
    cases.push({ input, output: qs.parse(input, OPTIONS) });
}
for (const input of HAND) add(input);
const handCount = cases.length;
let guard = 0;
while (cases.length < handCount + RANDOM_CASES && guard < RANDOM_CASES * 10) {
    add(randomInput());
    guard += 1;
}

const lines = cases.map((c) => JSON.stringify({ input: c.input, output: c.output }));
const text = '[\n' + lines.join(',\n') + '\n]\n';
if (Buffer.byteLength(text) > MAX_FIXTURE_BYTES) {
    throw new Error('fixture too large: ' + Buffer.byteLength(text) + ' bytes');
}
fs.writeFileSync(OUT, text);
console.log('qs ' + require('qs/package.json').version + ': wrote ' + cases.length + ' cases (' + handCount +
    ' hand-picked) to ' + path.relative(process.cwd(), OUT) + ', ' + Buffer.byteLength(text) + ' bytes');
