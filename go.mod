module github.com/lfsim/lfsim

go 1.26.8

require (
	github.com/go-echarts/go-echarts/v2 v2.6.7 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
