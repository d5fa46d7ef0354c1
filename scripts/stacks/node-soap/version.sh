#!/usr/bin/env bash
# Prints what this stack runs on.
cd "$(dirname "$0")"
echo "node-soap $(node -p 'require("soap/package.json").version'), Node.js $(node --version), cluster of $(node -p 'require("os").availableParallelism()')"
