// Bundlers replace `process.env.NODE_ENV`; declared here in the shape @types/node uses, so
// the two merge when both are present. Not part of the published types.
declare namespace NodeJS {
  interface ProcessEnv {
    NODE_ENV?: string;
  }
  interface Process {
    env: ProcessEnv;
  }
}
declare var process: NodeJS.Process;
