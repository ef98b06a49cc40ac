
 P@hâ"
*CrBrowserMain
P@
ZHXºunknown topø|
CP@Z=HXºunknown nested²%
Watcher˜network.mojom.URLLoader