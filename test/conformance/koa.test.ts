import { koaDriver } from "./drivers/koa.ts";
import { conformance } from "./suite.ts";

// Latest (koa 3) and lowest supported (koa2 = koa@2.15.0).
conformance(koaDriver("koa"));
conformance(koaDriver("koa2"));
