'use strict';
/**
 * Instructions instead of seconds (`BENCH_INSTRUCTIONS=1`): the server and the ceiling run
 * under valgrind's callgrind, which counts the instructions every thread of the process
 * executes (main thread, GC helpers, compiler threads). On this shared VM CPU seconds per
 * click swing by up to 70% between rounds of one commit; an instruction count does not depend
 * on what else the machine is doing, so two commits can be compared to a few percent. It is
 * not time: a cache miss or a slow system call costs one instruction here. Under valgrind the
 * processes run ~50 times slower, so only the counts per request mean anything, not the rates.
 *
 * Instrumentation is off while the process boots (`--instr-atstart=no`) and switched on for the
 * load; each round zeroes the counters first and reads them (`callgrind_control -e Ir`) after.
 */
const { execFileSync } = require('node:child_process');

/** Asked only in this mode: a plain bench run starts no valgrind. */
function hasCallgrind() {
  try {
    execFileSync('valgrind', ['--version']);
    execFileSync('callgrind_control', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** The command and arguments that run `command args` under callgrind, counting nothing yet. */
function underCallgrind(command, args) {
  if (!hasCallgrind()) throw new Error('BENCH_INSTRUCTIONS=1 needs valgrind (callgrind_control)');
  return [
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites machine code in its heap: valgrind must notice every change.
      '--smc-check=all-non-file',
      // valgrind runs one thread at a time; without fair turns V8's compiler threads starve,
      // and the JIT takes many minutes of load to reach its steady code.
      '--fair-sched=yes',
      // No output file is needed (the counts are read live); this keeps /tmp clean.
      '--callgrind-out-file=/dev/null',
      command,
      ...args,
    ],
  ];
}

/**
 * valgrind names its control pipes after the HOST variable of the process it runs (the service's
 * is its listen address): callgrind_control must see the same value to find them.
 */
function callgrindControl(pid, host, ...args) {
  const env = { ...process.env };
  if (host === undefined) delete env.HOST;
  else env.HOST = host;
  return execFileSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8', env });
}

/** Per-thread instruction counts from `callgrind_control -e Ir` ("Th 1  160,212,922"). */
function parseThreadTotals(output) {
  const threads = [];
  for (const match of output.matchAll(/^\s*Th\s+(\d+)\s+([\d,]+)\s*$/gm)) {
    threads.push({ thread: Number(match[1]), instructions: Number(match[2].replace(/,/g, '')) });
  }
  if (threads.length === 0) throw new Error(`no instruction counts in: ${output}`);
  return threads;
}

/**
 * Starts counting in the process (instrumentation on, counters zeroed); the function returned
 * reads what it counted since: every thread's instructions, and the main thread's alone.
 * `host` is the HOST variable the process was started with (undefined when unset).
 */
function countInstructions(pid, host) {
  callgrindControl(pid, host, '--instr=on');
  callgrindControl(pid, host, '--zero');
  return () => {
    const threads = parseThreadTotals(callgrindControl(pid, host, '-e', 'Ir'));
    return {
      all: threads.reduce((sum, { instructions }) => sum + instructions, 0),
      mainThread: threads.find(({ thread }) => thread === 1)?.instructions ?? 0,
    };
  };
}

module.exports = { underCallgrind, countInstructions };
