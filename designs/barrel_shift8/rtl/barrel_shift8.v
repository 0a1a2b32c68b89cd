// barrel_shift8: 8-bit logarithmic barrel shifter (three mux stages: 1, 2, 4).
//   mode 0 SLL : logical shift left
//   mode 1 SRL : logical shift right
//   mode 2 SRA : arithmetic shift right (sign fill)
//   mode 3 ROR : rotate right
// Left shifts are done by bit-reversing, shifting right, and reversing back.
module barrel_shift8 (
    input  wire [7:0] d,
    input  wire [2:0] sh,
    input  wire [1:0] mode,
    output wire [7:0] y
);
    localparam [1:0] M_SLL = 2'd0,
                     M_SRA = 2'd2,
                     M_ROR = 2'd3;   // mode 1 (SRL) is the plain zero-fill case

    function [7:0] rev8;
        input [7:0] x;
        integer k;
        begin
            for (k = 0; k < 8; k = k + 1)
                rev8[k] = x[7-k];
        end
    endfunction

    wire       is_left = (mode == M_SLL);
    wire       is_rot  = (mode == M_ROR);
    wire       is_ari  = (mode == M_SRA);
    wire       sign    = d[7];

    wire [7:0] s0 = is_left ? rev8(d) : d;

    // stage 1: shift right by 1
    wire       f1 = is_rot ? s0[0]   : (is_ari & sign);
    wire [7:0] s1 = sh[0] ? {f1,   s0[7:1]} : s0;
    // stage 2: shift right by 2
    wire [1:0] f2 = is_rot ? s1[1:0] : {2{is_ari & sign}};
    wire [7:0] s2 = sh[1] ? {f2, s1[7:2]} : s1;
    // stage 3: shift right by 4
    wire [3:0] f3 = is_rot ? s2[3:0] : {4{is_ari & sign}};
    wire [7:0] s3 = sh[2] ? {f3, s2[7:4]} : s2;

    assign y = is_left ? rev8(s3) : s3;
endmodule
