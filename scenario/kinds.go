package scenario

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/lfsim/lfsim/kind"
)

// The keys and values that the tables of kinds (package kind) give the
// format: a schema field tagged kinds:"..." takes them from the table
// when schemaOf reads its struct, so that no kind is named here.
//
//	kinds:"cc"         a text value: the congestion controls hca.cc
//	                   takes, then the tag's own enum ("none")
//	kinds:"tcp-cc"     the same for hca.tcp.cc (iWARP's TCP)
//	kinds:"cc-params"  one key per congestion control with parameters,
//	                   its name, holding them (CCSectionsV)
//	kinds:"load-balance" a text value: the switches' load balancing
//	                   modes (kind.LoadBalances)
//	kinds:"transport"  a text value: the transports (kind.TransportNames)
//	kinds:"encap"      a text value: an overlay's encapsulations
//	                   (kind.EncapNames)
//	kinds:"spray"      a text value: how a UET sender chooses its
//	                   packets' entropy (kind.SprayNames)

// kindFields are the keys field f (of a struct at index idx) stands for,
// when it carries a kinds tag; ok is false when it carries none.
func kindFields(f reflect.StructField, idx []int) (out []fieldInfo, ok bool) {
	which, ok := f.Tag.Lookup("kinds")
	if !ok {
		return nil, false
	}
	switch which {
	case "load-balance", "transport", "encap", "spray":
		names := kind.TransportNames()
		if which == "encap" {
			names = kind.EncapNames()
		}
		if which == "spray" {
			names = kind.SprayNames()
		}
		if which == "load-balance" {
			names = nil
			for _, l := range kind.LoadBalances() {
				names = append(names, l.Name)
			}
		}
		name := f.Tag.Get("yaml")
		return []fieldInfo{{name: name, index: idx, tag: reflect.StructTag(fmt.Sprintf(`yaml:%q enum:%q`, name, strings.Join(names, "|")))}}, true
	case "cc", "tcp-cc":
		names := kind.Names(func(c kind.CC) bool { return c.RDMA && which == "cc" || c.TCP && which == "tcp-cc" })
		if own := f.Tag.Get("enum"); own != "" {
			names = append(names, own)
		}
		name := f.Tag.Get("yaml")
		tag := reflect.StructTag(fmt.Sprintf(`yaml:%q enum:%q`, name, strings.Join(names, "|")))
		return []fieldInfo{{name: name, index: idx, tag: tag}}, true
	case "cc-params":
		for _, c := range ccSectionsOrder() {
			out = append(out, fieldInfo{name: c.Name, index: idx, section: paramStruct(c), defName: strings.ToUpper(c.Name) + "S"})
		}
		return out, true
	}
	panic("scenario: unknown kinds tag " + which)
}

// ccSectionsOrder is the congestion controls with parameters in the
// order hca: lists their keys: InfiniBand's first, then Ethernet's, each
// in the table's order.
func ccSectionsOrder() []kind.CC {
	var ib, eth []kind.CC
	for _, c := range kind.CCs() {
		switch {
		case len(c.Params) == 0:
		case c.InfiniBand && !c.Ethernet:
			ib = append(ib, c)
		default:
			eth = append(eth, c)
		}
	}
	return append(ib, eth...)
}

// paramTypes are the schema's leaf types for each kind.Type.
var paramTypes = map[kind.Type]reflect.Type{
	kind.TypeRate: reflect.TypeOf(RateV{}), kind.TypeTime: reflect.TypeOf(TimeV{}), kind.TypeSize: reflect.TypeOf(SizeV{}),
	kind.TypeInt: reflect.TypeOf(IntV{}), kind.TypeFrac: reflect.TypeOf(fracV{}), kind.TypeNum: reflect.TypeOf(numV{}),
	kind.TypeBool: reflect.TypeOf(boolV{}), kind.TypeText: reflect.TypeOf(StrV{}), kind.TypeLink: reflect.TypeOf(LinkS{}),
}

// paramStruct is a schema struct for c's parameters: meta, then one
// field per parameter (paramFields).
func paramStruct(c kind.CC) reflect.Type {
	return reflect.StructOf(append([]reflect.StructField{{Name: "Meta", Type: metaType}}, paramFields(c.Params)...))
}

// paramFields are a schema struct's fields for a kind's parameters, one
// per parameter (P0, P1, ...), tagged as a written schema struct would
// be.
func paramFields(params []kind.Param) []reflect.StructField {
	var fields []reflect.StructField
	for i, p := range params {
		tag := fmt.Sprintf(`yaml:%q`, p.Key)
		for _, kv := range [][2]string{{"min", p.Min}, {"max", p.Max}, {"enum", strings.Join(p.Enum, "|")}, {"todo", p.Todo}, {"use", p.Use}} {
			if kv[1] != "" {
				tag += fmt.Sprintf(` %s:%q`, kv[0], kv[1])
			}
		}
		if p.Required {
			tag += ` required:""`
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("P%d", i), Type: paramTypes[p.Type], Tag: reflect.StructTag(tag)})
	}
	return fields
}

// CCSectionsV holds hca:'s congestion-control sections as decoded, by
// the control's name (each a pointer to its paramStruct).
type CCSectionsV struct {
	by map[string]reflect.Value
}

// at is a new section for name, of type t, to decode into.
func (s *CCSectionsV) at(name string, t reflect.Type) reflect.Value {
	if s.by == nil {
		s.by = map[string]reflect.Value{}
	}
	v := reflect.New(t)
	s.by[name] = v
	return v.Elem()
}

// CCParamsS is hca.<name>: one congestion control's parameters as the
// file gives them.
type CCParamsS struct {
	meta
	// Given are the keys given, in the order of the control's Params.
	Given []GivenParam
}

// GivenParam is one parameter the file gives: the table's parameter,
// its value (the Go value of its kind.Type) and where the value is.
type GivenParam struct {
	Param kind.Param
	V     any
	Pos   Pos
}

// CCParams is hca.<name> as the file gives it (nothing given when the
// file has no such key).
func (h *HCAS) CCParams(name string) *CCParamsS {
	out := &CCParamsS{}
	v, ok := h.Params.by[name]
	c, known := kind.LookupCC(name)
	if !ok || !known {
		return out
	}
	st := v.Elem()
	out.meta = *st.Field(0).Addr().Interface().(*meta)
	for i, p := range c.Params {
		if i+1 >= st.NumField() {
			break
		}
		f := st.Field(i + 1)
		if !f.FieldByName("Set").Bool() {
			continue
		}
		out.Given = append(out.Given, GivenParam{Param: p, V: f.FieldByName("V").Interface(), Pos: f.FieldByName("Pos").Interface().(Pos)})
	}
	return out
}
