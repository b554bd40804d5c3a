package ceiling

// fifo is a growable ring, a power of two long: a lane's events, a port's
// egress FIFO of packet indices, a host's ACKs owed. 32 bytes, so that a
// port's FIFO fits in its 64-byte record.
type fifo[T any] struct {
	buf        []T
	head, size int32
}

func (f *fifo[T]) len() int32 { return f.size }

func (f *fifo[T]) push(x T) {
	if int(f.size) == len(f.buf) {
		nb := make([]T, max(16, 2*len(f.buf)))
		for i := int32(0); i < f.size; i++ {
			nb[i] = f.buf[(f.head+i)&int32(len(f.buf)-1)]
		}
		f.buf, f.head = nb, 0
	}
	f.buf[(f.head+f.size)&int32(len(f.buf)-1)] = x
	f.size++
}

// peek returns the head; the FIFO must not be empty.
func (f *fifo[T]) peek() *T { return &f.buf[f.head] }

// pop removes and returns the head; the FIFO must not be empty.
func (f *fifo[T]) pop() T {
	x := f.buf[f.head]
	f.head = (f.head + 1) & int32(len(f.buf)-1)
	f.size--
	return x
}
