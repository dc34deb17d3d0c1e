module github.com/gamma-rs/gamma-rs/tools/gateway-api-release

go 1.26.0
