#!/usr/bin/env node
import "../dist/cli/svc.js";
