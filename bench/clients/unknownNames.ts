/**
 * A client for `bench/unknown.ts`, in a process of its own: `connections` keep-alive
 * connections, each requesting `/api/bundles/nope<n>.js` back to back until killed. Prints the
 * number of answers (all must be 404) when it gets SIGTERM.
 */
import { Agent, request } from "node:http";

const [port, connections] = process.argv.slice(2).map(Number) as [number, number];
const agent = new Agent({ keepAlive: true, maxSockets: connections });
let answered = 0;
let wrong = 0;
let n = 0;

function loop(): void {
  const req = request(
    { host: "127.0.0.1", port, path: `/api/bundles/nope${n++}.js`, agent },
    (res) => {
      res.resume();
      res.on("end", () => {
        answered++;
        if (res.statusCode !== 404) wrong++;
        loop();
      });
    },
  );
  req.on("error", () => setTimeout(loop, 10));
  req.end();
}
for (let i = 0; i < connections; i++) loop();
process.on("SIGTERM", () => {
  process.stdout.write(`ANSWERED=${answered} WRONG=${wrong}\n`);
  process.exit(0);
});
process.stdout.write("READY\n");
