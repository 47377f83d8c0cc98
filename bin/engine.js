#!/usr/bin/env node
// The `engine` command: runs the compiled CLI (npm run build produces dist/).
import '../dist/main.js';
