/* fastx_tpl.h - the templates the fast decoder is specialised for, every way (test helper).
 *
 * Shared by tests/fuzz/fuzz_fastx_diff.c and tests/unit/test_fastx_*.c: one
 * template with every integer type x operator x presence and every ASCII
 * operator the fast path takes, and trade/order-like templates whose tick
 * fields need rescaling (decimalPlaces other than the ABI's), share a slot
 * with another template (key=) and can overflow their tick field, so the
 * specialised path, not the fallback, meets every rule; and one (Vec)
 * within what the VBMI level's vector path takes (fastx_vlower.c: at most
 * 16 fields, no delta), with every other operator, presence and type.
 */
#ifndef FASTX_TPL_H
#define FASTX_TPL_H

static const char fastx_spec_xml[] =
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	" <template name=\"X\" id=\"10\">\n"
	"  <uInt32 name=\"A\"/>\n"
	"  <int32 name=\"B\" presence=\"optional\"/>\n"
	"  <int64 name=\"C\"><copy/></int64>\n"
	"  <uInt64 name=\"D\" presence=\"optional\"><copy/></uInt64>\n"
	"  <int32 name=\"E\"><increment value=\"2147483646\"/></int32>\n"
	"  <uInt32 name=\"F\" presence=\"optional\"><increment/></uInt32>\n"
	"  <int64 name=\"G\"><delta/></int64>\n"
	"  <int32 name=\"H\" presence=\"optional\"><delta value=\"7\"/></int32>\n"
	"  <uInt64 name=\"I\"><delta/></uInt64>\n"
	"  <uInt32 name=\"J\"><delta/></uInt32>\n"
	"  <uInt32 name=\"K\"><constant value=\"9\"/></uInt32>\n"
	"  <int32 name=\"L\" presence=\"optional\"><constant value=\"-3\"/></int32>\n"
	"  <int64 name=\"M\"><default value=\"100\"/></int64>\n"
	"  <uInt64 name=\"N\" presence=\"optional\"><default/></uInt64>\n"
	"  <string name=\"O\"/>\n"
	"  <string name=\"P\" presence=\"optional\"/>\n"
	"  <string name=\"Q\"><copy value=\"abc\"/></string>\n"
	"  <string name=\"R\" presence=\"optional\"><copy/></string>\n"
	"  <string name=\"S\"><default value=\"x\"/></string>\n"
	"  <string name=\"T\" presence=\"optional\"><default/></string>\n"
	"  <string name=\"U\"><constant value=\"K\"/></string>\n"
	"  <string name=\"V\" presence=\"optional\"><constant value=\"KK\"/></string>\n"
	"  <uInt32 name=\"W\"><copy/></uInt32>\n"
	"  <uInt64 name=\"Y\" presence=\"optional\"><increment value=\"18446744073709551615\"/></uInt64>\n"
	"  <int64 name=\"Z\" presence=\"optional\"><delta/></int64>\n"
	" </template>\n"
	" <template name=\"TradeLike\" id=\"11\">\n"
	"  <int32 name=\"TradeIndex\"><increment/></int32>\n"
	"  <string name=\"SecurityID\" presence=\"optional\"><copy/></string>\n"
	"  <int64 name=\"TradePrice\" decimalPlaces=\"5\"><copy/></int64>\n"
	"  <int64 name=\"TradeQty\" presence=\"optional\" decimalPlaces=\"0\"><delta/></int64>\n"
	"  <int32 name=\"TradeTime\" presence=\"optional\"/>\n"
	"  <uInt64 name=\"TradeMoney\" presence=\"optional\"><default value=\"5\"/></uInt64>\n"
	"  <string name=\"TradeBSFlag\" presence=\"optional\"><default value=\"B\"/></string>\n"
	"  <int64 name=\"BizIndex\"><increment/></int64>\n"
	"  <int32 name=\"DataStatus\"><copy key=\"W\"/></int32>\n"
	" </template>\n"
	" <template name=\"OrderLike\" id=\"12\">\n"
	"  <int32 name=\"OrderPrice\" presence=\"optional\" decimalPlaces=\"3\"><default/></int32>\n"
	"  <string name=\"OrderType\"><copy/></string>\n"
	"  <string name=\"OrderBSFlag\" presence=\"optional\"/>\n"
	"  <int64 name=\"Balance\"><copy/></int64>\n"
	"  <uInt32 name=\"OrderNO\"/>\n"
	"  <int32 name=\"OrderIndex\" decimalPlaces=\"2\"><increment/></int32>\n"
	"  <string name=\"SecurityID\"><constant value=\"600000\"/></string>\n"
	"  <uInt32 name=\"OrderChannel\" presence=\"optional\"><constant value=\"4294967295\"/></uInt32>\n"
	" </template>\n"
	" <template name=\"Vec\" id=\"14\">\n"
	"  <uInt32 name=\"VA\"/>\n"
	"  <int32 name=\"VB\" presence=\"optional\"/>\n"
	"  <int64 name=\"VC\"><copy/></int64>\n"
	"  <uInt64 name=\"VD\" presence=\"optional\"><copy/></uInt64>\n"
	"  <int32 name=\"VE\"><increment value=\"2147483646\"/></int32>\n"
	"  <uInt32 name=\"VF\" presence=\"optional\"><increment/></uInt32>\n"
	"  <uInt32 name=\"VK\"><constant value=\"9\"/></uInt32>\n"
	"  <int32 name=\"VL\" presence=\"optional\"><constant value=\"-3\"/></int32>\n"
	"  <int64 name=\"VM\"><default value=\"100\"/></int64>\n"
	"  <uInt64 name=\"VN\" presence=\"optional\"><default/></uInt64>\n"
	"  <string name=\"VO\"/>\n"
	"  <string name=\"VQ\"><copy value=\"abc\"/></string>\n"
	"  <string name=\"VR\" presence=\"optional\"><copy/></string>\n"
	"  <string name=\"VS\"><default value=\"x\"/></string>\n"
	"  <string name=\"VU\"><constant value=\"K\"/></string>\n"
	"  <int32 name=\"VW\"><copy key=\"W\"/></int32>\n"
	" </template>\n"
	" <template name=\"Plain\" id=\"13\">\n"
	"  <string name=\"SecurityID\"><copy/></string>\n"
	"  <int32 name=\"A\"><copy key=\"W\"/></int32>\n"
	" </template>\n"
	"</templates>\n";

#endif
