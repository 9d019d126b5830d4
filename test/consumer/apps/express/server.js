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

const server = app.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING http://127.0.0.1:${server.address().port}`);
});
