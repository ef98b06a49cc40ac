
	‚t1
	‚t2
@dPZHX∫a
@êPZHX
@»PZHX∫b
@¨PZHX
@2PZHX∫x
@ñPZHX
@˙PZHX∫y
@dPZ
HX∫tie