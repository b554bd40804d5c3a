package main
import (
 _ "gonum.org/v1/gonum/graph/simple"
 _ "gonum.org/v1/gonum/graph/path"
 _ "gonum.org/v1/gonum/graph/topo"
 _ "gonum.org/v1/gonum/stat"
 _ "gopkg.in/yaml.v3"
 _ "github.com/spf13/pflag"
 _ "github.com/go-echarts/go-echarts/v2/charts"
)
func main(){}
