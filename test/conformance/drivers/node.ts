import { createNodeHandler } from "../../../packages/server/src/transports/node.ts";
import { type Driver, listenNode } from "./driver.ts";

export const nodeDriver: Driver = {
  name: "node:http (createNodeHandler)",
  normalisesDotSegments: false,
  start({ source, options, prefix }) {
    const handler = createNodeHandler(source, { ...options, prefix });
    return listenNode((req, res) =>
      handler(req, res, () => {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("outside svc");
      }),
    );
  },
};
