// Sums vitest JSON reports (one per Node release) into the plain line CI ends with.
"use strict";
const { readFileSync } = require("node:fs");

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // A run that died before writing its report counts as one failure, never as nothing.
    console.log(`${file}: no report`);
    failed++;
    continue;
  }
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.success || report.numFailedTests > 0 ? 0 : 1);
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
