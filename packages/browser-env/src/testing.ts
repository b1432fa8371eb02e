// @owrl/browser-env/testing: what tests and benchmarks use to look at Chromium from outside — the
// /proc readers and parsers behind the pool's memory figures and zombie checks. Not part of the
// environment's API (the main entry).
export { processTree, treeRssBytes, treeMemory, pssBytes, rssBytes, parseKbField, listProcesses, parseStat, type ProcInfo, type TreeMemory } from './proc-tree.js';
