// accept: a priority encoder written as a for loop, plus (* parallel_case *) on a case whose items are mutually exclusive constants (a no-op pragma)
module prio_enc8 (
    input  wire [7:0] d,
    output reg  [2:0] idx,
    output wire       valid
);
    integer k;
    reg [2:0] found;
    always @* begin
        found = 3'd0;
        for (k = 0; k < 8; k = k + 1)
            if (d[k]) found = k[2:0];
        (* parallel_case *)
        case (found)
            3'd0: idx = 3'd0;
            3'd1: idx = 3'd1;
            3'd2: idx = 3'd2;
            3'd3: idx = 3'd3;
            3'd4: idx = 3'd4;
            3'd5: idx = 3'd5;
            3'd6: idx = 3'd6;
            default: idx = 3'd7;
        endcase
    end
    assign valid = |d;
endmodule
