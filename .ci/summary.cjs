// Sums vitest JSON reports (one per Node release) into the plain line CI ends with,
// after naming every failed test and every test that passed only on its retry, so a red run says what to look at without its whole log.
"use strict";
const { readFileSync } = require("node:fs");
const { relative } = require("node:path");

let passed = 0;
let failed = 0;
let skipped = 0;
let flaky = 0;
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
  for (const suite of report.testResults ?? []) {
    const where = relative(process.cwd(), suite.name);
    for (const test of suite.assertionResults ?? []) {
      // A passed test with failure messages failed once and passed on its retry (vitest.config.ts): a flake to fix.
      const verdict = test.status === "failed" ? "failed" : test.status === "passed" && test.failureMessages?.length ? "flaky" : "";
      if (!verdict) continue;
      if (verdict === "flaky") flaky++;
      const why = String(test.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300);
      console.log(`  ${verdict}: ${where} > ${test.fullName}\n    ${why}`);
    }
    // A file that failed to load has no tests to name; its message says why.
    if (suite.status === "failed" && (suite.assertionResults ?? []).length === 0) {
      console.log(`  failed: ${where}\n    ${String(suite.message ?? "").split("\n")[0].slice(0, 300)}`);
    }
  }
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.success || report.numFailedTests > 0 ? 0 : 1);
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed (${flaky} on a retry), ${failed} failed, ${skipped} skipped`);
