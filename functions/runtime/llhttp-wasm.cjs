// undici's llhttp (its HTTP/1 parser, WebAssembly with SIMD) as the Lambda bundles see it (scripts/build.ts puts this
// module in its place): the binary read from beside the bundle when undici first parses a response, instead of 70 KB
// of base64 in index.mjs that every cold start would read and compile. CommonJS like the module it replaces, whose
// `module.exports` undici's client takes as the WebAssembly bytes.
const { readLlhttpWasm } = require('./llhttp-file.ts');

let wasm;
Object.defineProperty(module, 'exports', {
  get: () => {
    wasm ??= readLlhttpWasm();
    return wasm;
  },
});
