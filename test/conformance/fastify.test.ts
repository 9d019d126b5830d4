import { fastifyDriver } from "./drivers/fastify.ts";
import { conformance } from "./suite.ts";

// Latest (fastify 5.x) and lowest supported (fastify-lowest = fastify@5.0.0).
conformance(fastifyDriver("fastify"));
conformance(fastifyDriver("fastify-lowest"));
