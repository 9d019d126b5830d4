// An Express app (ES modules) as a user writes it after `svc init`: the test puts the lines
// `svc init` printed for the server at the two markers, and the page lines into PAGE.
import express from "express";

// svc-init: imports

const PAGE = process.env.PAGE ?? "";

const app = express();
app.get("/", (_req, res) => {
  res
    .type("html")
    .send(
      `<!doctype html><html><head><link rel="icon" href="data:,"></head><body>${PAGE}</body></html>`,
    );
});
// svc-init: mount

// An island as any backend embeds one: the page asks svc's render endpoint for the HTML.
app.get("/island", async (_req, res) => {
  const { port } = server.address();
  const answer = await fetch(`http://127.0.0.1:${port}/api/bundles/hello/html?hydrate=load`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "island" }),
  });
  const island = await answer.text();
  res
    .status(answer.status)
    .type("html")
    .send(
      `<!doctype html><html><head><link rel="icon" href="data:,"></head><body>${island}<script src="/api/loader.js" defer></script></body></html>`,
    );
});

const server = app.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING http://127.0.0.1:${server.address().port}`);
});
