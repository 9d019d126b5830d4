import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestLog } from "../config/svcConfig.ts";
import type { Logger } from "../logger.ts";

/** One request in the log, as `log` says. */
export function logRequest(
  logger: Logger,
  log: RequestLog,
  req: IncomingMessage,
  res: ServerResponse,
  started: number,
): void {
  const ms = performance.now() - started;
  if (log === "text") {
    logger.info(`${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms`);
    return;
  }
  const length = res.getHeader("content-length");
  logger.info(
    JSON.stringify({
      time: new Date().toISOString(),
      method: req.method,
      path: req.url,
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
      bytes: length === undefined ? undefined : Number(length),
      remote: req.socket.remoteAddress,
    }),
  );
}
