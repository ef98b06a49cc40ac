
‚
clocks
.2*
¿Ñ=
†¬
	– 

@
 Ë
AdP
@¿œ$PZHX∫mono1–
2
Äâz
¿πUP
@‡∆[PZHX∫mono2–
@¥PZ
HX∫tsc–	
@PZHX∫seqclock–@
@PZHX∫no snapshot–@
@2PZHX∫inc1–A
@PZHX∫inc2–A
@ Ñ=PZHX∫boot