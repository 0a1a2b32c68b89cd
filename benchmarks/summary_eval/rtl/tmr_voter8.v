// Bitwise two-out-of-three voter for triple modular redundancy.
module tmr_voter8 (
    input  wire [7:0] copy_a,
    input  wire [7:0] copy_b,
    input  wire [7:0] copy_c,
    output wire [7:0] voted,
    output wire       mismatch
);
    assign voted    = (copy_a & copy_b) | (copy_a & copy_c) | (copy_b & copy_c);
    assign mismatch = (copy_a != copy_b) || (copy_a != copy_c);
endmodule
