// Preload (node --require, or NODE_OPTIONS="--require .../loopback.cjs" so that children
// inherit it) that keeps third-party test servers on loopback: server-everything's HTTP
// modes and the conformance suite's scenario servers call listen() without a host, which
// would bind every interface. A listen() with no host, "0.0.0.0" or "::" binds 127.0.0.1.
"use strict";
const dns = require("node:dns");
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const ANY = new Set([undefined, null, "", "0.0.0.0", "::", "[::]"]);
const listen = net.Server.prototype.listen;
const lookup = dns.lookup;

// listen() without a host binds at once, and some servers read address() right after it;
// with a host Node looks it up first (asynchronously, even an IP). Answering that lookup
// synchronously, only inside our listen() and only for IP literals, keeps address() ready.
// Node 20 asks for one address, Node 22 and later for all of them ({all: true}).
let insideListen = false;
dns.lookup = function lookupIpAtOnce(hostname, options, callback) {
  const done = typeof options === "function" ? options : callback;
  const family = net.isIP(hostname);
  if (insideListen && family !== 0 && typeof done === "function") {
    if (options && options.all) done(null, [{ address: hostname, family }]);
    else done(null, hostname, family);
    return {};
  }
  return lookup.apply(this, arguments);
};

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first, second] = args;
  if (args.length === 0 || typeof first === "function") {
    args.unshift(0, LOOPBACK);
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof second === "string" || second === null || second === undefined) {
      if (args.length === 1 || ANY.has(second)) args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (first && typeof first === "object" && !("_handle" in first) && !("fd" in first) && first.path === undefined) {
    if (ANY.has(first.host)) args[0] = { ...first, host: LOOPBACK };
  }
  insideListen = true;
  try {
    return listen.apply(this, args);
  } finally {
    insideListen = false;
  }
};
