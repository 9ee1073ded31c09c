import { runCli } from './run-cli';

runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`linkpilot: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
