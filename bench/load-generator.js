'use strict';
/**
 * The benchmark's load generator: keep-alive HTTP/1.1 connections, each cycling through its
 * own list of requests serialised before the run, one request in flight per connection.
 * Nothing is built per request (autocannon's setupRequest ran ~37 µs of JavaScript for each,
 * so the bare ceiling server was capped by the generator, not by its own core): a request
 * costs one socket write of a ready Buffer and a scan of the answer for its end. The redirect
 * and the ceiling runs share this code, so the generator costs both the same per request.
 */
const net = require('node:net');

const HEADER_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/**
 * Serialises one GET request. `headers` is a plain object; Host is added.
 * @returns {Buffer}
 */
function serialiseRequest(path, headers) {
  const lines = [`GET ${path} HTTP/1.1`, 'host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Where one complete answer ends in `buffer` (from 0), and its status; null while incomplete.
 * Knows the two framings our servers use: Content-Length, and chunked with an empty body.
 */
function parseAnswer(buffer) {
  const headerEnd = buffer.indexOf(HEADER_END);
  if (headerEnd === -1) return null;
  const head = buffer.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headerEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length !== null) {
    const end = bodyStart + Number(length[1]);
    return buffer.length >= end ? { status, end } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const chunkedEnd = buffer.indexOf(CHUNKED_END, bodyStart);
    return chunkedEnd === -1 ? null : { status, end: chunkedEnd + CHUNKED_END.length };
  }
  return { status, end: bodyStart };
}

/**
 * Runs `lists.length` connections for `durationS` seconds, connection i cycling through
 * lists[i]. Resolves with counts and latency percentiles (ms) of the answers received.
 * With `positions` (one index per connection), each connection starts where it stands and
 * leaves its next index there, so successive runs carry on through the lists instead of
 * repeating their start.
 *
 * Closed loop by default: each connection sends its next request when the last is answered,
 * so the rate is whatever the server sustains (saturation). With `ratePerSecond`, open loop:
 * requests leave on a fixed schedule, spread round-robin over the connections (pipelined on
 * a connection whose last answer has not come yet), and each latency counts from the moment
 * the schedule said the request should leave, so a server that falls behind shows its whole
 * delay (no coordinated omission).
 */
function runLoad({ port, lists, durationS, positions, ratePerSecond }) {
  return new Promise((resolve) => {
    const latenciesUs = [];
    const statuses = new Map();
    let errors = 0;
    let open = lists.length;
    let stopping = false;
    const startedAt = process.hrtime.bigint();

    const finish = () => {
      const elapsedS = Number(process.hrtime.bigint() - startedAt) / 1e9;
      const sorted = Float64Array.from(latenciesUs).sort();
      const percentile = (p) =>
        sorted.length === 0
          ? 0
          : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] / 1000;
      const count = (predicate) =>
        [...statuses].reduce((sum, [status, n]) => sum + (predicate(status) ? n : 0), 0);
      resolve({
        requests: sorted.length,
        requestsPerSecond: Math.round(sorted.length / elapsedS),
        latencyP50Ms: Number(percentile(0.5).toFixed(2)),
        latencyP99Ms: Number(percentile(0.99).toFixed(2)),
        status3xx: count((status) => status >= 300 && status < 400),
        status302: count((status) => status === 302),
        statuses: Object.fromEntries(statuses),
        errors,
      });
    };

    const isOpenLoop = ratePerSecond !== undefined;
    const sockets = [];
    /** Per connection: enqueue(scheduledAt) sends its next request, to be answered in order. */
    const connections = [];
    for (const [connection, list] of lists.entries()) {
      const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
      sockets.push(socket);
      let index = positions?.[connection] ?? 0;
      /** When each request awaiting its answer was (to be) sent, oldest first. */
      const awaiting = [];
      let pending = Buffer.alloc(0);
      const sendAt = (scheduledAt) => {
        awaiting.push(scheduledAt);
        socket.write(list[index]);
        index = (index + 1) % list.length;
      };
      const sendNext = () => {
        if (stopping) socket.end();
        else sendAt(process.hrtime.bigint());
      };
      connections.push({ enqueue: sendAt, isIdle: () => awaiting.length === 0, socket });
      if (!isOpenLoop) socket.on('connect', sendNext);
      socket.on('data', (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (let answer = parseAnswer(pending); answer !== null; answer = parseAnswer(pending)) {
          const now = process.hrtime.bigint();
          latenciesUs.push(Number(now - awaiting.shift()) / 1000);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          pending = pending.subarray(answer.end);
          if (!isOpenLoop) sendNext();
          else if (stopping && awaiting.length === 0) socket.end();
        }
      });
      socket.on('error', () => {
        errors++;
      });
      socket.on('close', () => {
        if (positions !== undefined) positions[connection] = index;
        open--;
        if (open === 0) finish();
      });
    }
    if (isOpenLoop) {
      // One timer a millisecond sends what the schedule says is due by now: request k is due
      // at start + k / rate. (A timer per request would cost the generator more than the run.)
      const scheduleStart = process.hrtime.bigint();
      const nsPerRequest = 1e9 / ratePerSecond;
      let dispatched = 0;
      const tick = () => {
        if (stopping) {
          // Connections still awaiting answers end when the last one comes (the data handler).
          for (const { isIdle, socket } of connections) if (isIdle()) socket.end();
          return;
        }
        const due = Math.floor(Number(process.hrtime.bigint() - scheduleStart) / nsPerRequest);
        for (; dispatched < due; dispatched++) {
          const scheduledAt = scheduleStart + BigInt(Math.round(dispatched * nsPerRequest));
          connections[dispatched % connections.length].enqueue(scheduledAt);
        }
        setTimeout(tick, 1);
      };
      Promise.all(
        sockets.map((socket) => new Promise((ready) => socket.once('connect', ready))),
      ).then(tick);
    }
    setTimeout(() => {
      stopping = true;
      // A connection whose answer never comes must not hold the run open.
      setTimeout(() => sockets.forEach((socket) => socket.destroy()), 5000).unref();
    }, durationS * 1000);
  });
}

module.exports = { runLoad, serialiseRequest };
