import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The web console (docs/console.md): Preact, built to dist/ui and served by the API at /ui.
// esbuild compiles the JSX for Preact; no framework plugin is needed.
export default defineConfig({
  root: __dirname,
  base: '/ui/',
  publicDir: resolve(__dirname, 'public'),
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: resolve(__dirname, '../../dist/ui'),
    emptyOutDir: true,
    target: 'es2022',
    // The CSP allows no inline script: no preload polyfill, no inlined scripts or styles.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    reportCompressedSize: true,
  },
  logLevel: 'warn',
});
