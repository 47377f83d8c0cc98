// The web workbench's build (npm run build -> dist/web) and dev server (npm run dev:web, port 5173).
// The dev server proxies the API and the event socket to a running engine (ENGINE_URL, default
// http://127.0.0.1:7777); the engine's guard admits the Origin of port 5173 (src/http/guard.ts).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

const engine = process.env.ENGINE_URL ?? 'http://127.0.0.1:7777';
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [preact()],
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    reportCompressedSize: false,
    rollupOptions: { input: { main: here('index.html'), phone: here('m/index.html') } },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: engine },
      '/events': { target: engine.replace(/^http/, 'ws'), ws: true },
    },
  },
});
