#!/usr/bin/env node
// Serves qs to the live differential proptest (tests/qs_differential.rs, STRATA_QS_LIVE=1):
// each stdin line is a JSON string (a query string); each stdout line is the JSON of
// qs.parse(input, Strapi's options), or {"error": "..."} if qs threw.
'use strict';

const readline = require('readline');
const qs = require('qs');

const OPTIONS = { depth: 20, arrayLimit: 100, strictNullHandling: true };
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
    let out;
    try {
        out = JSON.stringify(qs.parse(JSON.parse(line), OPTIONS));
    } catch (e) {
        out = JSON.stringify({ error: String(e) });
    }
    process.stdout.write(out + '\n');
});
