// Builds the memory inspector into packages/server/dist/ui, served by the server at /ui/ (RFC 0012).
// Plain modules and one stylesheet, no inline script or style (the page's CSP forbids both), no
// source maps (the tarball ships no UI sources for them to point at).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
