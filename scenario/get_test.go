package scenario

import (
	"reflect"
	"testing"
)

// TestLeavesGet holds every leaf type of the format (a struct with V,
// Pos and Set, as values.go's) to a Get method that returns V and Set:
// resolution lays a given value over its default through Get (resolve's
// override), so a leaf type without one could not be resolved that way.
// It walks the schema from File.
func TestLeavesGet(t *testing.T) {
	seen := map[reflect.Type]bool{}
	leaves := 0
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		v, hasV := ty.FieldByName("V")
		_, hasPos := ty.FieldByName("Pos")
		set, hasSet := ty.FieldByName("Set")
		if hasV && hasPos && hasSet && set.Type.Kind() == reflect.Bool && len(v.Index) == 1 {
			leaves++
			m, ok := ty.MethodByName("Get")
			if !ok || m.Type.NumIn() != 1 || m.Type.NumOut() != 2 || m.Type.Out(0) != v.Type || m.Type.Out(1).Kind() != reflect.Bool {
				t.Errorf("%s is a leaf (V %s, Pos, Set) without Get() (%s, bool)", ty, v.Type, v.Type)
			}
			return
		}
		for i := range ty.NumField() {
			walk(ty.Field(i).Type)
		}
	}
	walk(reflect.TypeOf(File{}))
	for _, ty := range []reflect.Type{reflect.TypeOf(StrV{}), reflect.TypeOf(IntV{}), reflect.TypeOf(u64V{}), reflect.TypeOf(numV{}),
		reflect.TypeOf(boolV{}), reflect.TypeOf(SizeV{}), reflect.TypeOf(TimeV{}), reflect.TypeOf(RateV{}), reflect.TypeOf(fracV{})} {
		if !seen[ty] {
			t.Errorf("the walk from File did not reach %s", ty)
		}
	}
	if leaves < 9 {
		t.Errorf("found %d leaf types; values.go declares 9", leaves)
	}
}
