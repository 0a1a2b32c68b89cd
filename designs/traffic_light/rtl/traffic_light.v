// traffic_light: two-road (north-south main road, east-west side road) traffic
// light controller with a side-road car sensor. Synchronous active-high reset.
// Phase sequence and lengths in clock cycles:
//   NS_G  : NS green, EW red. At least 8 cycles; then stays until ew_car = 1
//   NS_Y  : NS yellow, EW red, 2 cycles
//   RED1  : all red, 1 cycle
//   EW_G  : EW green, NS red, 5 cycles
//   EW_Y  : EW yellow, NS red, 2 cycles
//   RED2  : all red, 1 cycle, then back to NS_G
// Lights are {red, yellow, green}, exactly one bit set per road.
module traffic_light (
    input  wire       clk,
    input  wire       rst,
    input  wire       ew_car,
    output reg  [2:0] ns_light,
    output reg  [2:0] ew_light
);
    localparam [2:0] NS_G = 3'd0,
                     NS_Y = 3'd1,
                     RED1 = 3'd2,
                     EW_G = 3'd3,
                     EW_Y = 3'd4,
                     RED2 = 3'd5;

    localparam [3:0] NS_G_MIN = 4'd8,
                     Y_LEN    = 4'd2,
                     RED_LEN  = 4'd1,
                     EW_G_LEN = 4'd5;

    localparam [2:0] L_RED = 3'b100, L_YEL = 3'b010, L_GRN = 3'b001;

    reg [2:0] state;
    reg [3:0] timer;       // cycles already spent in the current phase, minus one
    reg       leave;       // leave the current phase at this clock edge
    reg [2:0] next;

    always @* begin
        case (state)
            NS_G:    begin leave = (timer >= NS_G_MIN - 4'd1) && ew_car; next = NS_Y; end
            NS_Y:    begin leave = (timer == Y_LEN - 4'd1);              next = RED1; end
            RED1:    begin leave = (timer == RED_LEN - 4'd1);            next = EW_G; end
            EW_G:    begin leave = (timer == EW_G_LEN - 4'd1);           next = EW_Y; end
            EW_Y:    begin leave = (timer == Y_LEN - 4'd1);              next = RED2; end
            RED2:    begin leave = (timer == RED_LEN - 4'd1);            next = NS_G; end
            default: begin leave = 1'b1;                                 next = NS_G; end
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            state <= NS_G;
            timer <= 4'd0;
        end else if (leave) begin
            state <= next;
            timer <= 4'd0;
        end else if (timer != 4'hF) begin
            timer <= timer + 4'd1;
        end
    end

    always @* begin
        case (state)
            NS_G:    begin ns_light = L_GRN; ew_light = L_RED; end
            NS_Y:    begin ns_light = L_YEL; ew_light = L_RED; end
            EW_G:    begin ns_light = L_RED; ew_light = L_GRN; end
            EW_Y:    begin ns_light = L_RED; ew_light = L_YEL; end
            default: begin ns_light = L_RED; ew_light = L_RED; end
        endcase
    end
endmodule
