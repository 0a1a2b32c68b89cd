module mux4to1 (
    input  wire [3:0] d0,
    input  wire [3:0] d1,
    input  wire [3:0] d2,
    input  wire [3:0] d3,
    input  wire [1:0] s,
    output reg  [3:0] out
);
    always @(*) begin
        case (s)
            2'd0:    out = d0;
            2'd1:    out = d1;
            2'd2:    out = d2;
            default: out = d3;
        endcase
    end
endmodule
