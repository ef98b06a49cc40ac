
M@dPb=interned"
src/foo.ccFoo *"C:\src\win.ccWinh‚t
@nPZ	HPXêh
@xPZHXh
*@ÇPZ!"	 RafterHX∫windows pathêh
*@åPZ!HX∫inlineäa\b.cInline h
/@ñPZ&HX∫inline partialäOnlyFunctionh
 @†PZHX∫same locationêh
@™PZHX∫missing iidê	h