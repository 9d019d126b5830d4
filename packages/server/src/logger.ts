/** The logger every part of the server writes through; pass your own to redirect output. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(`warning: ${message}`),
  error: (message, error) =>
    error === undefined ? console.error(message) : console.error(message, error),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
