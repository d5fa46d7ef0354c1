<?php
// Decodes a request as PHP's SoapServer does in WSDL mode and says what the operation received.
class Recorder {
    public function __call($operation, $args) {
        fwrite(STDERR, json_encode([$operation, $args]));
        return true;
    }
}
$server = new SoapServer($argv[1], ['cache_wsdl' => WSDL_CACHE_NONE]);
$server->setClass('Recorder');
$server->handle(file_get_contents($argv[2]));
