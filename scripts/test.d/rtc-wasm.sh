#!/usr/bin/env bash
# WebRTC netplay in the browser's build: netplay/rtc builds and vets for js/wasm, where pion
# wraps the browser's RTCPeerConnection and coder/websocket the browser's WebSocket. (Its tests
# need real peer connections, native only: go test -race ./... runs them.)
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOOS=js GOARCH=wasm
go vet ./netplay/rtc
go build -o /dev/null ./netplay/rtc
echo "netplay/rtc builds and vets for js/wasm"
