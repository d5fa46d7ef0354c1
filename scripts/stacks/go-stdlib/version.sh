#!/usr/bin/env bash
# Prints what this stack runs on.
echo "Go $(go env GOVERSION), net/http + encoding/xml"
