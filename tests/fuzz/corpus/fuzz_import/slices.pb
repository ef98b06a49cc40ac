
ât
@
ZHXºa
@ZHXºb
@ZHXºa
@(ZHX
@2ZHX
@<ZHXºopen
@FZXºtypeless
@PPZHºnowhere
P	â*legacy
@ZP	ZHºon legacy thread
P	ZH€ºabs
P	ZHºdelta