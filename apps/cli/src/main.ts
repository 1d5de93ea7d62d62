import 'reflect-metadata';
import { runCli } from './cli';

// `npm run cli -- users create alice` → node dist/apps/cli/main.js users create alice
if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
