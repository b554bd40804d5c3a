package scenario

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// JSON Schema (draft 2020-12) of scenario files, for editors
// (yaml-language-server) and other tools. It is generated from the same
// schema structs the loader decodes: their yaml keys and tags (required,
// enum, oneof, min, max) through schemaOf, and, for each value with a
// decoder of its own, from a jsonSchema method beside that decoder, so
// that a key added to the loader is in the schema too (TestJSONSchema
// checks every struct of the File tree is reached). It checks a file's
// shape: keys, kinds of value, enumerations, plain numeric ranges; what
// needs the scenario as a whole (a host name that exists, a size's
// bounds in units) is the loader's.

// SchemaID is the schema's $id.
const SchemaID = "https://lfsim.dev/schema/scenario.schema.json"

// jsonSchemer is a value with its own decoder, which says its own schema.
type jsonSchemer interface {
	jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any
}

var jsonSchemerType = reflect.TypeOf((*jsonSchemer)(nil)).Elem()

// schemaGen builds a schema, keeping each named struct once in $defs.
type schemaGen struct {
	defs map[string]any
}

// JSONSchema returns the scenario format's JSON Schema, indented.
func JSONSchema() []byte {
	g := &schemaGen{defs: map[string]any{}}
	root := g.object(reflect.TypeOf(File{}))
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "lfsim scenario"
	root["description"] = "A scenario for lfsim, the packet-level simulator of RDMA fabrics (docs/SCENARIO.md)."
	root["patternProperties"] = map[string]any{"^x-": map[string]any{"description": "an extension key, a place for YAML anchors"}}
	root["type"] = "object"
	root["$defs"] = g.defs
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // maps of strings, numbers and slices
	}
	return append(b, '\n')
}

// of is the schema of a value of type t under a field's tag.
func (g *schemaGen) of(t reflect.Type, tag reflect.StructTag) map[string]any {
	if reflect.PointerTo(t).Implements(jsonSchemerType) {
		return reflect.New(t).Interface().(jsonSchemer).jsonSchema(g, tag)
	}
	switch t.Kind() {
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem(), tag)}
	case reflect.Struct:
		return g.ref(t)
	}
	panic("scenario: no JSON schema for " + t.String())
}

// ref is a $ref to struct t's schema in $defs (made on first use).
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	name := t.Name()
	if name == "" {
		return g.object(t) // an anonymous struct: inline
	}
	return g.refAs(name, t)
}

// refAs is a $ref to struct t's schema in $defs under name (a struct a
// table of kinds gives has no name of its own).
func (g *schemaGen) refAs(name string, t reflect.Type) map[string]any {
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = nil // a placeholder against recursion
		g.defs[name] = g.object(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// object is a schema struct's schema: its keys (schemaOf's, as the
// decoder reads them), the required ones, and no other. An empty block
// ("switch:" alone) is null, which the loader takes as an empty mapping.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	si := schemaOf(t)
	props := map[string]any{}
	var req []string
	for _, f := range si.fields {
		if f.section != nil {
			props[f.name] = g.refAs(f.defName, f.section)
		} else {
			props[f.name] = g.of(t.FieldByIndex(f.index).Type, f.tag)
		}
		if f.required {
			req = append(req, f.name)
		}
	}
	s := map[string]any{"type": []string{"object", "null"}, "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

// enumOf is a tag's enum (or oneof) as a list, nil when it has none.
func enumOf(tag reflect.StructTag, key string) []string {
	if e := tag.Get(key); e != "" {
		return strings.Split(e, "|")
	}
	return nil
}

func anyOf(s ...map[string]any) map[string]any { return map[string]any{"anyOf": s} }

func constant(v string) map[string]any { return map[string]any{"const": v} }

// Patterns of the values written with units (fabric.ParseSize,
// sim.ParseTime, fabric.ParseRate and ParseIBRate, fracV).
const (
	sizePattern = `^\s*[0-9]+(\.[0-9]+)?\s*(KiB|MiB|GiB|TiB|KB|MB|GB|TB|B)?\s*$`
	timePattern = `^\s*(0|[0-9]+(\.[0-9]+)?\s*(ps|ns|us|µs|μs|ms|s))\s*$`
	ratePattern = `^\s*([0-9]+(\.[0-9]+)?\s*([TtGgMmKk])(bps|b/s|bit/s)?|([0-9]+[xX])?(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR|sdr|ddr|qdr|fdr10|fdr|edr|hdr|ndr|xdr))\s*$`
	pctPattern  = `^\s*[0-9]+(\.[0-9]+)?\s*%\s*$`
)

func (*StrV) jsonSchema(_ *schemaGen, tag reflect.StructTag) map[string]any {
	s := map[string]any{"type": "string"}
	if tag.Get("number") == "also" {
		// A string the loader also takes written as a YAML number
		// (a fault's loss rate: 1e-2 as well as 1/256 or 1%).
		s["type"] = []any{"string", "number"}
	}
	if e := enumOf(tag, "enum"); e != nil {
		s["enum"] = e
	}
	return s
}

func (*IntV) jsonSchema(_ *schemaGen, tag reflect.StructTag) map[string]any {
	s := map[string]any{"type": "integer"}
	for _, k := range []string{"min", "max"} {
		if v, err := strconv.ParseInt(tag.Get(k), 10, 64); err == nil {
			s[map[string]string{"min": "minimum", "max": "maximum"}[k]] = v
		}
	}
	if e := enumOf(tag, "oneof"); e != nil {
		var vs []int64
		for _, x := range e {
			v, _ := strconv.ParseInt(x, 10, 64)
			vs = append(vs, v)
		}
		s["enum"] = vs
	}
	return s
}

func (*u64V) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": "integer", "minimum": 0}
}

func (*numV) jsonSchema(_ *schemaGen, tag reflect.StructTag) map[string]any {
	s := map[string]any{"type": "number"}
	for _, k := range []string{"min", "max"} {
		if v, err := strconv.ParseFloat(tag.Get(k), 64); err == nil {
			s[map[string]string{"min": "minimum", "max": "maximum"}[k]] = v
		}
	}
	return s
}

func (*boolV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": "boolean"}
}

func (*SizeV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "integer", "minimum": 0},
		map[string]any{"type": "string", "pattern": sizePattern, "description": "bytes, with KiB, MiB, GiB, TiB (1024-based) or KB, MB, GB, TB (1000-based)"})
}

func (*TimeV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"const": 0},
		map[string]any{"type": "string", "pattern": timePattern, "description": "a time such as 500ns, 2us, 1.5ms"})
}

func (*RateV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": "string", "pattern": ratePattern, "description": "a rate such as 100Gbps, 400G, 25Mbps, or an InfiniBand speed such as EDR or 4xHDR"}
}

func (*fracV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "number", "minimum": 0, "maximum": 1},
		map[string]any{"type": "string", "pattern": pctPattern})
}

func (*whenV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	one := (*StrV)(nil).jsonSchema(g, tag)
	return anyOf(one, map[string]any{"type": "array", "items": one})
}

// jsonSchema of topology: kind, then the keys of that kind.
func (*TopologyV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	var branches []map[string]any
	kinds := topologyKinds()
	for _, k := range kinds {
		var keys map[string]any
		if kt := topologyKeys(k); k == explicitKind {
			keys = g.ref(kt)
		} else {
			keys = g.refAs(topologyDefName(k), kt) // a table's struct has no name of its own
		}
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": constant(k)}, "required": []string{"kind"}},
			"then": keys,
		})
	}
	return map[string]any{"type": "object", "required": []string{"kind"},
		"properties": map[string]any{"kind": map[string]any{"enum": kinds}}, "allOf": branches}
}

func (*hostDeclV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "string"}, g.ref(reflect.TypeOf(hostDeclS{})))
}

func (*switchDeclV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "string"}, g.ref(reflect.TypeOf(switchDeclS{})))
}

func (*serverDeclV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return g.ref(reflect.TypeOf(serverDeclS{}))
}

func (*LinkItemV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 2, "maxItems": 2},
		g.ref(reflect.TypeOf(linkItemS{})))
}

func (*routesV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": []string{"object", "null"}, "description": "switch: {destination host: next hop}",
		"additionalProperties": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}}
}

func (x *xoffV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf((*SizeV)(nil).jsonSchema(g, tag), g.object(reflect.TypeOf(x.Dyn)))
}

func (x *xonV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf((*SizeV)(nil).jsonSchema(g, tag), g.object(reflect.TypeOf(x.Rel)))
}

func (*autoSizeV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf(constant("auto"), (*SizeV)(nil).jsonSchema(g, tag))
}

func (*offTimeV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf(constant("off"), map[string]any{"const": false}, (*TimeV)(nil).jsonSchema(g, tag))
}

func (*autoTimeV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf(constant("auto"), (*TimeV)(nil).jsonSchema(g, tag))
}

func (*ecnV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return anyOf(constant("off"), map[string]any{"const": false}, g.ref(reflect.TypeOf(ecnS{})))
}

func (*SchedulerV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf(constant("strict"), map[string]any{"type": "object", "required": []string{"dwrr"}, "additionalProperties": false,
		"properties": map[string]any{"dwrr": (*dwrrV)(nil).jsonSchema(g, tag), "strict": strictTCs}},
		map[string]any{"type": "object", "required": []string{"ets"}, "additionalProperties": false,
			"properties": map[string]any{"ets": map[string]any{"type": "object", "description": "traffic class: percent (summing to 100)",
				"propertyNames": map[string]any{"pattern": "^[0-7]$"}, "additionalProperties": map[string]any{"type": "integer", "minimum": 1, "maximum": 100}},
				"strict": strictTCs}})
}

// strictTCs is scheduler.strict: the strict traffic classes.
var strictTCs = map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": 0, "maximum": 7}}

func (*ClassMap) jsonSchema(_ *schemaGen, tag reflect.StructTag) map[string]any {
	pattern := "^[0-7]$"
	if tag.Get("keymax") == "63" {
		pattern = "^([0-9]|[1-5][0-9]|6[0-3])$"
	}
	return map[string]any{"type": "object", "description": "from: to (a DSCP or priority to a priority or traffic class 0..7)",
		"propertyNames": map[string]any{"pattern": pattern}, "additionalProperties": map[string]any{"type": "integer", "minimum": 0, "maximum": 7}}
}

func (b *BufferV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf((*SizeV)(nil).jsonSchema(g, tag), g.object(reflect.TypeOf(b.Pool)))
}

func (x *ThresholdV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf((*SizeV)(nil).jsonSchema(g, tag), g.object(reflect.TypeOf(x.Dyn)))
}

func (*dwrrV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": "object", "description": "priority: weight",
		"propertyNames": map[string]any{"pattern": "^[0-7]$"}, "additionalProperties": map[string]any{"type": "integer", "minimum": 1}}
}

func (*rxRateV) jsonSchema(g *schemaGen, tag reflect.StructTag) map[string]any {
	return anyOf(constant("line"), (*RateV)(nil).jsonSchema(g, tag))
}

func (*SizesV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": []string{"string", "integer"},
		"description": "websearch, hadoop (or another built-in distribution), a CDF file's path, or a fixed size"}
}

// jsonSchema of a traffic item: a mapping with one key, a generator.
func (*TrafficV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	var gens []map[string]any
	for _, gen := range generators {
		gens = append(gens, map[string]any{"type": "object", "additionalProperties": false, "required": []string{gen.name},
			"properties": map[string]any{gen.name: g.ref(reflect.TypeOf(gen.new()).Elem())}})
	}
	return map[string]any{"oneOf": gens}
}

func (*NameListV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(constant("all"), map[string]any{"type": "array", "items": map[string]any{"type": "string"}})
}

func (*SelV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"enum": []string{"all", "none"}}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}})
}

func (*flowSelV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"enum": []string{"all", "none"}}, map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": 0}})
}

func (*WCCountsV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return map[string]any{"type": "object", "description": "work completion status: count",
		"propertyNames": map[string]any{"enum": WCStatuses}, "additionalProperties": map[string]any{"type": "integer", "minimum": 0}}
}

func (*allOrIntV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(constant("all"), map[string]any{"type": "integer", "minimum": 0})
}

func (*SnaplenV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(constant("full"), map[string]any{"type": "integer", "minimum": 64, "maximum": 262144},
		map[string]any{"type": "string", "pattern": sizePattern})
}

func (*PauseChecksV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	one := g.ref(reflect.TypeOf(pauseCheckS{}))
	return anyOf(one, map[string]any{"type": "array", "items": one})
}
