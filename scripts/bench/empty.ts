// The runtime's own start-up floor: a compiled Bun program that does nothing.
export {};
