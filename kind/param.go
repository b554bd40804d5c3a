package kind

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Type is how a parameter's value is written in a file, and which Go
// value the format hands over for it.
type Type int

const (
	// TypeRate is a rate such as 40Mbps: a fabric.Rate.
	TypeRate Type = iota + 1
	// TypeTime is a time such as 300us: a sim.Time.
	TypeTime
	// TypeSize is a size such as 64KiB: a fabric.Size.
	TypeSize
	// TypeInt is a whole number: an int64.
	TypeInt
	// TypeFrac is a fraction, 0.95 or 95%: a float64 in [0, 1].
	TypeFrac
	// TypeNum is any number: a float64.
	TypeNum
	// TypeBool is true or false: a bool.
	TypeBool
	// TypeText is one of Enum: a string.
	TypeText
	// TypeLink is a link profile, {rate, delay}, each over the link it
	// defaults to (Over): a fabric.LinkSpec (a topology's keys).
	TypeLink
)

// Param is one key of a kind's parameters (hca.dcqcn.rpg_ai_rate): its
// name in the file, its type, its bounds and how its value reaches the
// kind's own parameter struct.
type Param struct {
	Key  string
	Type Type
	// Min and Max bound the value in its own units as a file writes them
	// ("1", "1ns", "1KiB"); empty for none.
	Min, Max string
	// Enum is a text parameter's values.
	Enum []string
	// Todo, when set, says the key parses but is not modelled yet
	// ("X is"): giving it is an error whose hint is Use.
	Todo, Use string
	// Doc says what the key is, in which unit, and where its default
	// comes from (the docs' table prints it).
	Doc string
	// Zero says what a zero value means when it is not a number (a rate
	// of 0 for "the line rate"), for the docs' table.
	Zero string
	// Preset picks the kind's defaults before the other keys apply
	// (DCQCN's variant); at most one parameter of a kind is one.
	Preset bool
	// Required: a file must give it (a topology's size); it has no
	// default.
	Required bool
	// Base is, for a link, the key of the link it defaults to (a
	// dumbbell's bottleneck is its link unless given); "" for the value
	// the kind's defaults hold, or the default link (DefaultLink) where
	// they hold none.
	Base  string
	set   func(params, v any)
	get   func(params any) any
	check func(v any) string
}

// Value is the parameter's value in params (a pointer to the kind's
// parameter struct), as the Go value of its Type; nil for one that is
// not kept there (a preset, a key not modelled yet).
func (p Param) Value(params any) any {
	if p.get == nil {
		return nil
	}
	return p.get(params)
}

// Set writes v (the Go value of the parameter's Type) into params (a
// pointer to the kind's parameter struct).
func (p Param) Set(params, v any) {
	if p.set != nil {
		p.set(params, v)
	}
}

// Check says what is wrong with v beyond its type and bounds, "" when
// nothing is.
func (p Param) Check(v any) string {
	if p.check == nil {
		return ""
	}
	return p.check(v)
}

// Range bounds the value (see Min and Max).
func (p Param) Range(min, max string) Param { p.Min, p.Max = min, max; return p }

// Checked adds a check of the value the file gives (a message, "" when
// the value is right), reported at the value.
func (p Param) Checked(check func(v any) string) Param { p.check = check; return p }

// ZeroMeans sets Zero.
func (p Param) ZeroMeans(what string) Param { p.Zero = what; return p }

// Described sets Doc.
func (p Param) Described(doc string) Param { p.Doc = doc; return p }

// Needed makes the parameter required.
func (p Param) Needed() Param { p.Required = true; return p }

// Over says which link key a link's rate and delay default to.
func (p Param) Over(base string) Param { p.Base = base; return p }

// Unmodelled is a key that parses but is not modelled yet: giving it is
// an error saying what ("X is") and the hint use.
func Unmodelled(key string, t Type, what, use string) Param {
	return Param{Key: key, Type: t, Todo: what, Use: use}
}

// Rate is a rate parameter written into the field of P that field
// returns.
func Rate[P any](key string, field func(*P) *fabric.Rate) Param {
	return Param{Key: key, Type: TypeRate, set: func(p, v any) { *field(p.(*P)) = v.(fabric.Rate) }, get: func(p any) any { return *field(p.(*P)) }}
}

// Time is a time parameter.
func Time[P any](key string, field func(*P) *sim.Time) Param {
	return Param{Key: key, Type: TypeTime, set: func(p, v any) { *field(p.(*P)) = v.(sim.Time) }, get: func(p any) any { return *field(p.(*P)) }}
}

// Size is a size parameter, in bytes.
func Size[P any](key string, field func(*P) *int64) Param {
	return Param{Key: key, Type: TypeSize, set: func(p, v any) { *field(p.(*P)) = int64(v.(fabric.Size)) }, get: func(p any) any { return fabric.Size(*field(p.(*P))) }}
}

// Int is a whole-number parameter.
func Int[P any](key string, field func(*P) *int) Param {
	return Param{Key: key, Type: TypeInt, set: func(p, v any) { *field(p.(*P)) = int(v.(int64)) }, get: func(p any) any { return int64(*field(p.(*P))) }}
}

// Frac is a fraction.
func Frac[P any](key string, field func(*P) *float64) Param {
	return Param{Key: key, Type: TypeFrac, set: func(p, v any) { *field(p.(*P)) = v.(float64) }, get: func(p any) any { return *field(p.(*P)) }}
}

// Num is a number that set writes into P as it needs and get reads
// back.
func Num[P any](key string, set func(*P, float64), get func(*P) float64) Param {
	return Param{Key: key, Type: TypeNum, set: func(p, v any) { set(p.(*P), v.(float64)) }, get: func(p any) any { return get(p.(*P)) }}
}

// Bool is a true-or-false parameter.
func Bool[P any](key string, field func(*P) *bool) Param {
	return Param{Key: key, Type: TypeBool, set: func(p, v any) { *field(p.(*P)) = v.(bool) }, get: func(p any) any { return *field(p.(*P)) }}
}

// Link is a link profile parameter.
func Link[P any](key string, field func(*P) *fabric.LinkSpec) Param {
	return Param{Key: key, Type: TypeLink, set: func(p, v any) { *field(p.(*P)) = v.(fabric.LinkSpec) }, get: func(p any) any { return *field(p.(*P)) }}
}

// Text is a parameter that takes one of enum.
func Text[P any](key string, field func(*P) *string, enum ...string) Param {
	return Param{Key: key, Type: TypeText, Enum: enum, set: func(p, v any) { *field(p.(*P)) = v.(string) }, get: func(p any) any { return *field(p.(*P)) }}
}
