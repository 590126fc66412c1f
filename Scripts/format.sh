#!/usr/bin/env bash
# Formats every Swift file in place, as `swift format lint --strict` (run by Scripts/test.sh) wants it.
set -euo pipefail
cd "$(dirname "$0")/.."
swift format format --in-place -r Sources Tests Package.swift
swift format lint --strict -r Sources Tests Package.swift
