/* hls_compat.h - the few Vitis HLS types the tops use, for plain g++ where Vitis is absent.
 *
 * Only the subset the kernels/hw tops relies on, with the same spelling as the
 * Vitis headers (ap_int.h, hls_stream.h, ap_axi_sdata.h), so the same top
 * source compiles against either:
 *
 *   ap_uint<N>      unsigned integer of N bits: construction from an integer,
 *                   range(hi, lo) read and write (at most 64 bits at a time),
 *                   to_uint64(), to_uint(), ==.
 *   hls::stream<T>  unbounded FIFO: write(), read(), read(T&), read_nb(T&),
 *                   empty(), full() (never), size(). Reading an empty stream
 *                   is a bug in a top (Vitis csim warns); here it aborts.
 *   ap_axiu<D,U,I,T> AXI4-Stream beat: data, keep, strb, user, last, id, dest.
 *                   Zero-width side channels get one bit here (never read).
 *
 * hw_common.h includes this file only when neither __SYNTHESIS__ is defined
 * nor the Vitis headers are on the include path.
 */
#ifndef HLS_COMPAT_H
#define HLS_COMPAT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>

template <int N>
class ap_uint {
	static_assert(N > 0 && N <= 1024, "ap_uint width 1..1024");
	enum { NW = (N + 63) / 64 };
	uint64_t w_[NW];

	static uint64_t ones(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
	void trim() { w_[NW - 1] &= ones(N - 64 * (NW - 1)); }

public:
	/* bits [hi:lo] of a value (hi - lo < 64) */
	uint64_t get_bits(int hi, int lo) const
	{
		uint64_t v = 0;
		int n = hi - lo + 1, i;
		if (lo < 0 || hi >= N || n <= 0 || n > 64) {
			std::fprintf(stderr, "ap_uint<%d>::range(%d, %d) out of bounds\n", N, hi, lo);
			std::abort();
		}
		for (i = 0; i < n; i++) {
			int b = lo + i;
			v |= ((w_[b / 64] >> (b % 64)) & 1ull) << i;
		}
		return v;
	}
	void set_bits(int hi, int lo, uint64_t v)
	{
		int n = hi - lo + 1, i;
		if (lo < 0 || hi >= N || n <= 0 || n > 64) {
			std::fprintf(stderr, "ap_uint<%d>::range(%d, %d) out of bounds\n", N, hi, lo);
			std::abort();
		}
		for (i = 0; i < n; i++) {
			int b = lo + i;
			w_[b / 64] &= ~(1ull << (b % 64));
			w_[b / 64] |= ((v >> i) & 1ull) << (b % 64);
		}
	}

	class range_ref {
		ap_uint *u_;
		int hi_, lo_;

	public:
		range_ref(ap_uint *u, int hi, int lo) : u_(u), hi_(hi), lo_(lo) {}
		range_ref &operator=(uint64_t v)
		{
			u_->set_bits(hi_, lo_, v);
			return *this;
		}
		operator uint64_t() const { return u_->get_bits(hi_, lo_); }
		uint64_t to_uint64() const { return u_->get_bits(hi_, lo_); }
		unsigned to_uint() const { return (unsigned)u_->get_bits(hi_, lo_); }
	};

	class const_range_ref {
		const ap_uint *u_;
		int hi_, lo_;

	public:
		const_range_ref(const ap_uint *u, int hi, int lo) : u_(u), hi_(hi), lo_(lo) {}
		operator uint64_t() const { return u_->get_bits(hi_, lo_); }
		uint64_t to_uint64() const { return u_->get_bits(hi_, lo_); }
		unsigned to_uint() const { return (unsigned)u_->get_bits(hi_, lo_); }
	};

	ap_uint()
	{
		for (int i = 0; i < NW; i++)
			w_[i] = 0;
	}
	ap_uint(uint64_t v)
	{
		w_[0] = v;
		for (int i = 1; i < NW; i++)
			w_[i] = 0;
		trim();
	}
	ap_uint &operator=(uint64_t v)
	{
		*this = ap_uint(v);
		return *this;
	}

	range_ref range(int hi, int lo) { return range_ref(this, hi, lo); }
	const_range_ref range(int hi, int lo) const { return const_range_ref(this, hi, lo); }
	uint64_t to_uint64() const { return w_[0]; }
	unsigned to_uint() const { return (unsigned)w_[0]; }
	operator uint64_t() const { return w_[0]; }

	bool operator==(const ap_uint &o) const
	{
		for (int i = 0; i < NW; i++)
			if (w_[i] != o.w_[i])
				return false;
		return true;
	}
	bool operator!=(const ap_uint &o) const { return !(*this == o); }
};

template <int D, int U, int TI, int TD>
struct ap_axiu {
	ap_uint<D> data;
	ap_uint<D / 8> keep;
	ap_uint<D / 8> strb;
	ap_uint<(U > 0 ? U : 1)> user;
	ap_uint<1> last;
	ap_uint<(TI > 0 ? TI : 1)> id;
	ap_uint<(TD > 0 ? TD : 1)> dest;
};

namespace hls {

template <typename T>
class stream {
	std::deque<T> q_;
	const char *name_;

public:
	stream() : name_("stream") {}
	explicit stream(const char *name) : name_(name) {}
	stream(const stream &) = delete;
	stream &operator=(const stream &) = delete;

	void write(const T &v) { q_.push_back(v); }
	bool write_nb(const T &v)
	{
		q_.push_back(v);
		return true;
	}
	T read()
	{
		if (q_.empty()) {
			std::fprintf(stderr, "hls::stream %s: read while empty\n", name_);
			std::abort();
		}
		T v = q_.front();
		q_.pop_front();
		return v;
	}
	void read(T &v) { v = read(); }
	bool read_nb(T &v)
	{
		if (q_.empty())
			return false;
		v = read();
		return true;
	}
	bool empty() const { return q_.empty(); }
	bool full() const { return false; }
	size_t size() const { return q_.size(); }
};

} /* namespace hls */

#endif
